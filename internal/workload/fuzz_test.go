package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzLex: token positions lie within the statement and increase, so messages that quote an
// offset point into what the user wrote.
func FuzzLex(f *testing.F) {
	for _, s := range cqlSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := lex(src)
		if err != nil {
			return
		}
		last := -1
		for _, tk := range toks {
			if tk.kind == tkEOF {
				continue
			}
			if tk.pos <= last || tk.pos >= len(src) {
				t.Fatalf("token %q at %d after %d, in %d bytes", tk.text, tk.pos, last, len(src))
			}
			if (tk.kind == tkIdent || tk.kind == tkNumber || tk.kind == tkPunct) && !strings.HasPrefix(src[tk.pos:], tk.text) {
				t.Fatalf("token %q is not the text at its offset %d", tk.text, tk.pos)
			}
			last = tk.pos
		}
	})
}

// FuzzParseCreateTable: what parses has a key made of its own distinct columns, and written
// back as CQL (every name quoted) parses to the same table.
func FuzzParseCreateTable(f *testing.F) {
	for _, s := range cqlSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		td, err := parseCreateTable(src)
		if err != nil {
			return
		}
		if len(td.partition) == 0 {
			t.Fatal("a table without a partition key parsed")
		}
		seen := map[int]bool{}
		for _, i := range append(append([]int(nil), td.partition...), td.clustering...) {
			if i < 0 || i >= len(td.columns) || seen[i] {
				t.Fatalf("key column %d of %d columns, or twice", i, len(td.columns))
			}
			seen[i] = true
		}
		back, err := parseCreateTable(renderTable(td))
		if err != nil {
			t.Fatalf("re-parsing %s: %v", renderTable(td), err)
		}
		want, got := summarize(td), summarize(back)
		want.Options, got.Options = "", ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// renderTable writes a parsed table back as one CREATE TABLE, without its options.
func renderTable(td *tableDef) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	if td.keyspace != "" {
		b.WriteString(quoteName(td.keyspace) + ".")
	}
	b.WriteString(quoteName(td.name) + " (")
	for _, c := range td.columns {
		b.WriteString(quoteName(c.name) + " " + c.typ.String())
		if c.static {
			b.WriteString(" STATIC")
		}
		b.WriteString(", ")
	}
	names := func(idx []int) string {
		var out []string
		for _, i := range idx {
			out = append(out, quoteName(td.columns[i].name))
		}
		return strings.Join(out, ", ")
	}
	b.WriteString("PRIMARY KEY ((" + names(td.partition) + ")")
	if len(td.clustering) > 0 {
		b.WriteString(", " + names(td.clustering))
	}
	b.WriteString("))")
	return b.String()
}

// cqlSeeds are the statements of the parser's tests and of the samples' schema.table.cql.
func cqlSeeds() []string {
	seeds := []string{
		"CREATE TABLE t (id uuid PRIMARY KEY, v text)",
		"CREATE TABLE KS.Events (a int, b text, c timestamp, PRIMARY KEY (a, b, c));",
		"create table if not exists \"Ks\".\"My Table\" (\n\"Col\" int, -- a comment; with a semicolon\nb TEXT, /* block ; */ c int,\nprimary key ((b, \"Col\"), c)\n) with clustering order by (c desc) and comment = 'it''s; fine' and gc_grace_seconds = 10;",
		"CREATE TABLE t (k int, c int, s text static, m frozen<map<text, list<int>>>, PRIMARY KEY (k, c)) WITH comment = $$x;y$$",
	}
	files, _ := filepath.Glob("../../config/samples/*.yaml")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		// The statement is the block under "cql: |", indented deeper than that line.
		for _, part := range bytes.Split(b, []byte("cql: |\n"))[1:] {
			var stmt []string
			for _, line := range strings.Split(string(part), "\n") {
				if !strings.HasPrefix(line, "        ") {
					break
				}
				stmt = append(stmt, strings.TrimSpace(line))
			}
			seeds = append(seeds, strings.Join(stmt, "\n"))
		}
	}
	return seeds
}

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
