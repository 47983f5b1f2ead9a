package summary

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cassbench/cassbench/internal/sketch"
)

func wide(seed uint64, n int) *sketch.Sketch {
	r := rand.New(rand.NewPCG(seed, seed+1))
	s := sketch.New()
	for i := 0; i < n; i++ {
		// From tens of microseconds to tens of seconds: the widest a real run produces.
		s.Add(math.Exp(r.Float64()*math.Log(5e7)) + 10)
	}
	return s
}

func ops(seed uint64) *Ops {
	return &Ops{OK: 1e9, WriteTimeout: 123456, ReadTimeout: 77, Unavailable: 9, Overloaded: 3,
		ClientTimeout: 41, Other: 2, Retries: 99999, Bytes: 1 << 40,
		Response: wide(seed, 200000), Service: wide(seed+10, 200000)}
}

func TestEncodeAlwaysFits(t *testing.T) {
	cases := map[string]*Summary{
		"four wide sketches": {Index: 63, Writers: 64, Start: 1e12, End: 1e12 + 6e5, Writes: ops(1), Reads: ops(2)},
		"and a long error": {Index: 1, Writers: 2, Writes: ops(3), Reads: ops(4),
			Error: strings.Repeat("node 127.0.0.2 timed out; ", 400)},
		"empty": {Index: 0, Writers: 1},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := s.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > MaxBytes {
				t.Fatalf("%d bytes, limit %d", len(b), MaxBytes)
			}
			back, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if back.Index != s.Index || back.Writers != s.Writers {
				t.Errorf("index/writers changed: %d/%d", back.Index, back.Writers)
			}
			if s.Writes != nil {
				if back.Writes.OK != s.Writes.OK || back.Writes.Failed() != s.Writes.Failed() {
					t.Errorf("counts changed: %+v", back.Writes)
				}
				if back.Writes.Response.Count() != s.Writes.Response.Count() {
					t.Errorf("sketch lost values: %d of %d", back.Writes.Response.Count(), s.Writes.Response.Count())
				}
				t.Logf("%d bytes, sketches at level %d (accuracy %.1f%%)", len(b),
					back.Writes.Response.Level(), 100*back.Writes.Response.RelativeAccuracy())
			}
			if s.Writes != nil && s.Writes.Response.Level() != 0 {
				t.Error("Encode changed the caller's sketch")
			}
		})
	}
}

func TestDecodeRefusesOtherVersions(t *testing.T) {
	if _, err := Decode([]byte(`{"v":2,"i":0}`)); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("got %v", err)
	}
	if _, err := Decode([]byte(`not json`)); err == nil {
		t.Fatal("decoded garbage")
	}
}

func TestSetupReportFits(t *testing.T) {
	r := &SetupReport{CassandraVersion: "5.0.4", Nodes: 3, Error: strings.Repeat("x", 10000)}
	for i := 0; i < 500; i++ {
		r.SettingsVerified = append(r.SettingsVerified, "some_rather_long_setting_name")
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxBytes {
		t.Fatalf("%d bytes", len(b))
	}
	back, err := DecodeSetupReport(b)
	if err != nil || back.Nodes != 3 || back.Error == "" {
		t.Fatalf("%+v %v", back, err)
	}
}
