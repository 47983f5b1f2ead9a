package workload

import (
	"math"
	"slices"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestZipf(t *testing.T) {
	cases := map[string]struct {
		s float64
		n uint64
	}{
		"s=1.1 n=1000": {1.1, 1000},
		"s=1 n=250":    {1, 250},
		"s=2 n=10^9":   {2, 1e9},
		"s=0.5 n=100":  {0.5, 100},
	}
	const draws = 200_000
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			z, err := newZipf(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[uint64]int{}
			for i := range uint64(draws) {
				r := z.rank(mix(i), tc.n)
				if r >= tc.n {
					t.Fatalf("rank %d out of [0, %d)", r, tc.n)
				}
				counts[r]++
			}
			norm := 0.0
			for k := 1; k <= int(min(tc.n, 1_000_000)); k++ {
				norm += math.Pow(float64(k), -tc.s)
			}
			for _, rank := range []uint64{0, 1, 4} {
				want := math.Pow(float64(rank+1), -tc.s) / norm * draws
				if got := float64(counts[rank]); math.Abs(got-want) > 0.05*want+30 {
					t.Errorf("rank %d drawn %v times, want %.0f ± 5%%", rank, got, want)
				}
			}
		})
	}
	if z, _ := newZipf(1.1); z.rank(12345, 1) != 0 {
		t.Errorf("a single rank must always be drawn")
	}
	if _, err := newZipf(0); err == nil {
		t.Errorf("exponent 0 accepted")
	}
}

func TestPicker(t *testing.T) {
	const n, draws = 1000, 100_000
	draw := func(d cbv1.Distribution) []int {
		p, err := newPicker(d, n, "")
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, n)
		for i := range uint64(draws) {
			counts[p.pick(i, mix(i^99))]++
		}
		return counts
	}
	t.Run("sequence", func(t *testing.T) {
		p, _ := newPicker(cbv1.DistributionSequence, n, "")
		for _, s := range []uint64{0, 1, 999, 1000, 123456} {
			if got := p.pick(s, 42); got != s%n {
				t.Errorf("pick(%d) = %d", s, got)
			}
		}
	})
	t.Run("uniform", func(t *testing.T) {
		counts := draw(cbv1.DistributionUniform)
		for tenth := range 10 {
			sum := 0
			for _, c := range counts[tenth*100 : (tenth+1)*100] {
				sum += c
			}
			if sum < draws/10*95/100 || sum > draws/10*105/100 {
				t.Errorf("tenth %d drawn %d times, want %d ± 5%%", tenth, sum, draws/10)
			}
		}
	})
	t.Run("normal", func(t *testing.T) {
		counts := draw(cbv1.DistributionNormal)
		mean, within := 0.0, 0
		for v, c := range counts {
			mean += float64(v * c)
			if math.Abs(float64(v)-499.5) <= n/6 {
				within += c
			}
		}
		mean /= draws
		if math.Abs(mean-499.5) > 5 {
			t.Errorf("mean %.1f, want 499.5 ± 5", mean)
		}
		if share := float64(within) / draws; share < 0.66 || share > 0.70 {
			t.Errorf("%.3f of draws within one standard deviation, want 0.68 ± 0.02", share)
		}
	})
	t.Run("zipf", func(t *testing.T) {
		counts := draw(cbv1.DistributionZipf)
		sorted := slices.Clone(counts)
		slices.Sort(sorted)
		if counts[0] != sorted[n-1] || counts[0] < 50*sorted[n/2] {
			t.Errorf("top value drawn %d times, median %d: want the first value hottest by far", counts[0], sorted[n/2])
		}
	})
}

// TestKeyDistributions checks the spread of partitions a writer writes, through the generator.
func TestKeyDistributions(t *testing.T) {
	const rows = 50_000
	spread := func(d cbv1.Distribution) (counts []int) {
		g := mustGenerator(specOf(partitions(400, d)), 1, 4) // owns keys 100..199
		row := make([]any, g.InsertArity())
		counts = make([]int, 100)
		for r := range int64(rows) {
			g.RowAt(r, row)
			k := row[0].(int64)
			if k < 100 || k >= 200 {
				t.Fatalf("writer 1 of 4 wrote key %d, outside its partitions 100..199", k)
			}
			counts[k-100]++
		}
		return counts
	}
	t.Run("uniform", func(t *testing.T) {
		for k, c := range spread(cbv1.DistributionUniform) {
			if c < rows/100*80/100 || c > rows/100*120/100 {
				t.Errorf("key %d written %d times, want %d ± 20%%", k+100, c, rows/100)
			}
		}
	})
	t.Run("zipf", func(t *testing.T) {
		counts := spread(cbv1.DistributionZipf)
		sorted := slices.Clone(counts)
		slices.Sort(sorted)
		if counts[0] < 20*sorted[50] {
			t.Errorf("hottest key written %d times, median %d: want a skew", counts[0], sorted[50])
		}
	})
	t.Run("normal", func(t *testing.T) {
		counts := spread(cbv1.DistributionNormal)
		if mid, edge := counts[49]+counts[50], counts[0]+counts[99]; mid < 5*edge {
			t.Errorf("middle keys written %d times, edge keys %d: want them centred", mid, edge)
		}
	})
	t.Run("sequence", func(t *testing.T) {
		for k, c := range spread(cbv1.DistributionSequence) {
			if c != rows/100 {
				t.Errorf("key %d written %d times, want exactly %d", k+100, c, rows/100)
			}
		}
	})
}

// TestHotCountries checks the ip-by-country profile: every writer writes the same few hot
// countries, which is the contention the seed experiment measured.
func TestHotCountries(t *testing.T) {
	hottest := map[int32]string{}
	for w := range int32(3) {
		g := mustGenerator(specOf(withProfile(cbv1.ProfileIPByCountry)), w, 3)
		row := make([]any, g.InsertArity())
		counts := map[string]int{}
		for r := range int64(20_000) {
			g.RowAt(r, row)
			counts[row[0].(string)]++
		}
		if len(counts) < 100 || len(counts) > 250 {
			t.Errorf("writer %d wrote %d countries, want most of 250", w, len(counts))
		}
		best := ""
		for c, n := range counts {
			if best == "" || n > counts[best] {
				best = c
			}
		}
		if counts[best] < 20_000/10 {
			t.Errorf("writer %d: hottest country has %d of 20000 rows, want a hot partition", w, counts[best])
		}
		hottest[w] = best
	}
	if hottest[0] != hottest[1] || hottest[1] != hottest[2] {
		t.Errorf("hottest countries %v differ between writers", hottest)
	}
}
