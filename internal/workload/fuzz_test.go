package workload

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseCSV: a file that parses has a header of distinct non-empty names and rows of its
// width, and every field is either refused with an error or parsed to a value of its kind.
func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("ip,city\n10.0.0.1,Paris\n2001:db8::1,\"Saint-Denis, 93\"\n"))
	f.Add([]byte("id,at,b,flag,n,x\n4b3f1c1e-6f2a-4d7e-9a44-0c1f5a3e2b10,2024-01-02T03:04:05Z,0x0a1b,true,-12,1.5e3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCSV("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, h := range c.Header {
			if h == "" || h != strings.TrimSpace(h) || seen[h] {
				t.Fatalf("header %q", c.Header)
			}
			seen[h] = true
		}
		if len(c.Rows) == 0 {
			t.Fatal("no rows")
		}
		for _, r := range c.Rows {
			if len(r) != len(c.Header) {
				t.Fatalf("row of %d fields under a header of %d", len(r), len(c.Header))
			}
			for _, field := range r {
				for name, k := range kinds {
					if k == kList || k == kMap || k == kDecimal {
						continue
					}
					v, n, err := parseCSVValue(k, strings.TrimSpace(field))
					if err == nil && (v == nil || n < 0) {
						t.Fatalf("%s %q parsed to %v (%d bytes)", name, field, v, n)
					}
				}
			}
		}
	})
}
