package sketch

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// A sketch collapsed below q keeps every quantile from q up at full accuracy and reports the
// ones below as upper bounds, never as accurate values.
func TestCollapseBelowKeepsHighQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := append(lognormal(r, 50000, 800, 1.5), lognormal(r, 200, 2e6, 0.3)...)
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	for _, from := range []float64{0.5, 0.9, 0.99} {
		s := New()
		for _, v := range values {
			s.Add(v)
		}
		before, _ := s.MarshalBinary()
		s.CollapseBelow(from)
		after, _ := s.MarshalBinary()
		if len(after) >= len(before) {
			t.Errorf("collapsing below %v did not shrink the sketch: %d -> %d bytes", from, len(before), len(after))
		}
		for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
			want := exactQuantile(sorted, q)
			got, bound := s.QuantileBound(q)
			if q >= from {
				if bound {
					t.Errorf("from %v: q%v reported as a bound", from, q)
				}
				if rel := math.Abs(got-want) / want; rel > Accuracy+1e-9 {
					t.Errorf("from %v: q%v = %.1f, exact %.1f (relative error %.4f)", from, q, got, want, rel)
				}
				continue
			}
			if !bound || got < want {
				t.Errorf("from %v: q%v = %.1f (bound %v), want an upper bound of %.1f", from, q, got, bound, want)
			}
		}
		var back Sketch
		if err := back.UnmarshalBinary(after); err != nil {
			t.Fatal(err)
		}
		if !back.Floored() || back.Quantile(0.999) != s.Quantile(0.999) {
			t.Errorf("from %v: the floor did not survive a round trip", from)
		}
	}
}

// Merging keeps the higher floor, at the coarser level, and adds every value.
func TestMergeFloored(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := lognormal(r, 20000, 500, 1), lognormal(r, 20000, 900, 1)
	sa, sb := New(), New()
	for _, v := range a {
		sa.Add(v)
	}
	for _, v := range b {
		sb.Add(v)
	}
	sb.CollapseBelow(0.9)
	sb.Coarsen(1)
	sa.Merge(sb)
	all := append(append([]float64(nil), a...), b...)
	sort.Float64s(all)
	if sa.Count() != uint64(len(all)) || !sa.Floored() || sa.Level() != 1 {
		t.Fatalf("merged: count %d, floored %v, level %d", sa.Count(), sa.Floored(), sa.Level())
	}
	for _, q := range []float64{0.99, 0.999} {
		want := exactQuantile(all, q)
		got, bound := sa.QuantileBound(q)
		if rel := math.Abs(got-want) / want; bound || rel > sa.RelativeAccuracy()+1e-9 {
			t.Errorf("q%v = %.1f (bound %v), exact %.1f", q, got, bound, want)
		}
	}
	if _, bound := sa.QuantileBound(0.1); !bound {
		t.Error("q0.1 lies in the floor and must be a bound")
	}
}

func TestDiffQuantile(t *testing.T) {
	s := New()
	for range 1000 {
		s.Add(100)
	}
	prev := s.Clone()
	for range 1000 {
		s.Add(10000)
	}
	if got := DiffQuantile(s, prev, 0.5); math.Abs(got-10000)/10000 > Accuracy {
		t.Errorf("median of the second interval is %v, want ~10000", got)
	}
	if got := DiffQuantile(s, s.Clone(), 0.99); got != 0 {
		t.Errorf("an empty interval gives %v, want 0", got)
	}
}
