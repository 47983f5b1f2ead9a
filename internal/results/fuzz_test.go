package results

import (
	"encoding/json"
	"testing"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// FuzzMergeDecoded: what the manager does with two writers' termination messages. Whatever
// decodes must merge without a panic into results the apiserver can store (JSON has no NaN),
// and every sketch the results keep must decode again.
func FuzzMergeDecoded(f *testing.F) {
	tl := &summary.Timeline{IntervalMillis: 1000}
	tl.Add(summary.Point{Ops: 100, Errors: 1, P99: 4000})
	for _, s := range []*summary.Summary{
		{Index: 0, Writers: 2, Start: 1e12, End: 1e12 + 6e4, SpanMicros: 6e7, Timeline: tl,
			Writes: &summary.Ops{OK: 1000, WriteTimeout: 3, Response: sketchOf([]float64{900, 1500, 40000}), Service: sketchOf([]float64{800})},
			Lag:    sketchOf([]float64{10, 20}), Schedule: &summary.Schedule{Target: 100, Due: 6000}},
		{Index: 1, Writers: 2, Start: 1e12 + 10, End: 1e12 + 6e4, Reads: &summary.Ops{OK: 10, Response: sketchOf([]float64{300})},
			Kinds:  []*summary.KindOps{{Kind: "scanPartition", Ops: summary.Ops{OK: 3, Rows: 9, Response: sketchOf([]float64{5000})}, Pages: 2}},
			Server: &summary.Server{Nodes: []summary.ServerNode{{Node: "10.0.0.1", Mutations: 5}}}, Error: "boom"},
	} {
		b, err := s.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, b)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var got []*summary.Summary
		for i, m := range [][]byte{a, b} {
			if s, err := summary.Decode(m); err == nil {
				s.Index = int32(i) // as readSummaries sets it from the report
				got = append(got, s)
			}
		}
		r := Merge(got)
		if r == nil {
			if len(got) > 0 {
				t.Fatal("Merge returned nothing for decoded summaries")
			}
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("results cannot be stored: %v", err)
		}
		if _, err := ResponseSketch(r); err != nil {
			t.Fatalf("results keep a sketch that does not decode: %v", err)
		}
		TargetShortfall(r)
	})
}

// FuzzDecode: the sketches status keeps (and results files carry) as base64.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(sketchOf([]float64{1, 900, 1500, 40000, 3e7})))
	f.Add("")
	f.Add("AgAA")
	f.Fuzz(func(t *testing.T, str string) {
		s, err := Decode(str)
		if err != nil || s == nil {
			return
		}
		back, err := Decode(Encode(s))
		if s.Count() == 0 {
			return // Encode writes "" for an empty sketch
		}
		if err != nil || back.Count() != s.Count() {
			t.Fatalf("round trip: %v", err)
		}
		Latency(s)
		m := sketch.New()
		m.Merge(s)
	})
}
