package sketch

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// exactQuantile uses the same rank rule as Sketch.Quantile, so the only difference left is
// the bucket error the sketch promises to bound.
func exactQuantile(sorted []float64, q float64) float64 {
	return sorted[int(q*float64(len(sorted)-1))]
}

func lognormal(r *rand.Rand, n int, median, sigma float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = median * math.Exp(sigma*r.NormFloat64())
	}
	return out
}

func TestQuantilesWithinAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]float64{
		"narrow around 1ms":      lognormal(r, 50000, 1000, 0.2),
		"wide 10us to seconds":   lognormal(r, 50000, 2000, 2.5),
		"bimodal with a GC tail": append(lognormal(r, 40000, 500, 0.3), lognormal(r, 400, 250000, 0.5)...),
		"with zeros":             append(make([]float64, 100), lognormal(r, 1000, 300, 1)...),
	}
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			s := New()
			for _, v := range values {
				s.Add(v)
			}
			checkQuantiles(t, s, values)
		})
	}
}

func checkQuantiles(t *testing.T, s *Sketch, values []float64) {
	t.Helper()
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
		want, got := exactQuantile(sorted, q), s.Quantile(q)
		if want < minValue {
			if got > minValue {
				t.Errorf("q%v: got %v, want ~0", q, got)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > s.RelativeAccuracy()+1e-9 {
			t.Errorf("q%v: got %.2f, want %.2f (relative error %.4f > %.4f)", q, got, want, rel, s.RelativeAccuracy())
		}
	}
	if uint64(len(values)) != s.Count() {
		t.Errorf("count %d, want %d", s.Count(), len(values))
	}
}

// Merged sketches must answer for the union of the values, not for an average of parts.
func TestMergeMatchesUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := [][]float64{lognormal(r, 20000, 800, 0.3), lognormal(r, 20000, 5000, 0.8), lognormal(r, 500, 90000, 0.2)}
	merged := New()
	var union []float64
	for i, p := range parts {
		s := New()
		for _, v := range p {
			s.Add(v)
		}
		if i == 1 {
			s.Coarsen(2) // writers may have had to coarsen to fit their summary
		}
		merged.Merge(s)
		union = append(union, p...)
	}
	if merged.Level() != 2 {
		t.Fatalf("merged level %d, want the coarsest, 2", merged.Level())
	}
	checkQuantiles(t, merged, union)
	var sum float64
	for _, v := range union {
		sum += v
	}
	if math.Abs(merged.Mean()-sum/float64(len(union))) > 1e-6*merged.Mean() {
		t.Errorf("mean %v, want %v", merged.Mean(), sum/float64(len(union)))
	}
}

func TestCoarsenKeepsAccuracyOfItsLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	values := lognormal(r, 30000, 3000, 1.5)
	for level := uint8(0); level <= 5; level++ {
		s := New()
		for _, v := range values {
			s.Add(v)
		}
		s.Coarsen(level)
		checkQuantiles(t, s, values)
	}
}

func TestEncodingRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s := New()
	for _, v := range lognormal(r, 10000, 1500, 2) {
		s.Add(v)
	}
	s.Add(0)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Sketch
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0, 0.5, 0.99, 1} {
		if back.Quantile(q) != s.Quantile(q) {
			t.Errorf("q%v: %v after round trip, %v before", q, back.Quantile(q), s.Quantile(q))
		}
	}
	if back.Count() != s.Count() || back.Sum() != s.Sum() {
		t.Errorf("count/sum changed: %d/%v vs %d/%v", back.Count(), back.Sum(), s.Count(), s.Sum())
	}
	t.Logf("wide distribution, 10000 values: %d bytes of JSON", len(b))
}

func TestCorruptEncodingsAreRefused(t *testing.T) {
	s := New()
	s.Add(100)
	s.Add(5000)
	good, _ := s.MarshalBinary()
	cases := map[string][]byte{
		"empty":           {},
		"unknown version": append([]byte{9}, good[1:]...),
		"truncated":       good[:len(good)-1],
		"trailing bytes":  append(append([]byte(nil), good...), 1),
		"count disagrees": func() []byte { b := append([]byte(nil), good...); b[3]++; return b }(),
		"unknown flags":   func() []byte { b := append([]byte(nil), good...); b[2] = 0x80; return b }(),
		"absurd level":    append([]byte{1, 200}, good[2:]...),
		// A 16-byte input claiming 2^17 buckets: one zero run that would allocate 1 MiB.
		"buckets beyond the bound": {2, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x08, 0, 0x80, 0x80, 0x08},
		// Offset near MaxInt64: later index arithmetic would overflow.
		"offset beyond any value": {2, 0, 0, 1, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 1},
	}
	for name, b := range cases {
		var out Sketch
		if err := out.UnmarshalBinary(b); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestEmptySketch(t *testing.T) {
	s := New()
	if s.Quantile(0.99) != 0 || s.Mean() != 0 || s.Count() != 0 {
		t.Fatalf("empty sketch answered %v/%v/%v", s.Quantile(0.99), s.Mean(), s.Count())
	}
	other := New()
	other.Merge(s)
	if other.Count() != 0 {
		t.Fatal("merging an empty sketch added values")
	}
}

func BenchmarkAdd(b *testing.B) {
	s := New()
	r := rand.New(rand.NewPCG(9, 10))
	values := lognormal(r, 4096, 1000, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Add(values[i&4095])
	}
}

// Buckets gives back every value counted, each where Quantile places its rank.
func TestBucketsGiveTheDistribution(t *testing.T) {
	s := New()
	for _, v := range []float64{0, 0, 10, 10.05, 500, 501, 502, 90000} {
		s.Add(v)
	}
	var total uint64
	var values []float64
	s.Buckets(func(v float64, c uint64) {
		total += c
		values = append(values, v)
	})
	if total != s.Count() {
		t.Fatalf("buckets count %d of %d values", total, s.Count())
	}
	if len(values) != 4 || values[0] != 0 || values[len(values)-1] != s.Max() || values[1] != s.Quantile(0.5) || values[2] != s.Quantile(0.75) {
		t.Errorf("bucket values %v", values)
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Errorf("bucket values not ascending: %v", values)
		}
	}
}
