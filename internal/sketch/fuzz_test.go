package sketch

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzUnmarshalBinary feeds the decoder what a writer pod could put in its termination
// message. A decoded sketch must stay within the bucket bounds, encode back to a fixed point,
// and survive every operation the manager applies to it (quantiles, merge, coarsen, collapse).
func FuzzUnmarshalBinary(f *testing.F) {
	for _, s := range seedSketches() {
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{2, 0, 0, 1, 0, 0, 0, 0, 0, 0x80, 0x80, 0x04})                         // count 1, n = 65536
	f.Add([]byte{2, 0, 0, 1, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}) // huge n
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Sketch
		if err := s.UnmarshalBinary(b); err != nil {
			return
		}
		if len(s.counts) > maxBuckets || s.offset < minIndex || s.offset+len(s.counts)-1 > maxIndex {
			t.Fatalf("decoded %d buckets at offset %d: outside [%d, %d]", len(s.counts), s.offset, minIndex, maxIndex)
		}
		enc, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encoding a decoded sketch: %v", err)
		}
		var back Sketch
		if err := back.UnmarshalBinary(enc); err != nil {
			t.Fatalf("decoding what MarshalBinary wrote: %v", err)
		}
		enc2, _ := back.MarshalBinary()
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not a fixed point:\n%x\n%x", enc, enc2)
		}
		if back.Count() != s.Count() || math.Float64bits(back.Sum()) != math.Float64bits(s.Sum()) {
			t.Fatalf("count/sum changed: %d/%v, then %d/%v", s.Count(), s.Sum(), back.Count(), back.Sum())
		}
		exercise(&s)
	})
}

// FuzzUnmarshalJSON covers the base64 layer the summary uses around the binary encoding.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range seedSketches() {
		b, _ := json.Marshal(s)
		f.Add(b)
	}
	f.Add([]byte(`"AgAA"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Sketch
		if err := json.Unmarshal(b, &s); err != nil {
			return
		}
		enc, err := json.Marshal(&s)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		var back Sketch
		if err := json.Unmarshal(enc, &back); err != nil || back.Count() != s.Count() {
			t.Fatalf("round trip: %v, count %d then %d", err, s.Count(), back.Count())
		}
	})
}

func seedSketches() []*Sketch {
	wide, floored, coarse := New(), New(), New()
	for i, v := range []float64{0, 0.0005, 1, 100, 1500, 5000, 1e6, 3e9} {
		wide.AddN(v, uint64(i+1))
		coarse.AddN(v, 2)
	}
	coarse.Coarsen(3)
	for v := 10.0; v < 1e5; v *= 1.7 {
		floored.Add(v)
	}
	floored.CollapseBelow(0.9)
	return []*Sketch{New(), wide, floored, coarse}
}

// exercise runs what the manager does with a decoded sketch; a panic fails the fuzz run.
func exercise(s *Sketch) {
	for _, q := range []float64{0, 0.5, 0.99, 0.999, 1} {
		s.Quantile(q)
		s.QuantileBound(q)
	}
	s.Mean()
	s.RelativeAccuracy()
	m := New()
	m.Merge(s)
	m.Merge(s.Clone())
	DiffQuantile(m, s, 0.99)
	c := s.Clone()
	c.CollapseBelow(0.5)
	if c.Level() < 30 {
		c.Coarsen(c.Level() + 1)
	}
}
