package changepoint

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveQ is the energy statistic computed straight from its definition, to check the prefix
// sums of bestInSegment against.
func naiveQ(x, y []float64) float64 {
	n, m := float64(len(x)), float64(len(y))
	var cross, wx, wy float64
	for _, a := range x {
		for _, b := range y {
			cross += math.Abs(a - b)
		}
	}
	for i := range x {
		for k := i + 1; k < len(x); k++ {
			wx += math.Abs(x[i] - x[k])
		}
	}
	for j := range y {
		for k := j + 1; k < len(y); k++ {
			wy += math.Abs(y[j] - y[k])
		}
	}
	e := 2 * cross / (n * m)
	if len(x) > 1 {
		e -= wx / (n * (n - 1) / 2)
	}
	if len(y) > 1 {
		e -= wy / (m * (m - 1) / 2)
	}
	return m * n / (m + n) * e
}

func TestBestInSegmentMaximizesTheEnergyStatistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 50 {
		z := make([]float64, 2+rng.IntN(25))
		for i := range z {
			z[i] = rng.NormFloat64() * 100
		}
		want := split{q: math.Inf(-1)}
		for tau := 1; tau < len(z); tau++ {
			for kappa := tau + 1; kappa <= len(z); kappa++ {
				if q := naiveQ(z[:tau], z[tau:kappa]); q > want.q+1e-9*math.Abs(q) {
					want = split{tau: tau, q: q}
				}
			}
		}
		got := bestInSegment(z, make([]float64, (len(z)+1)*(len(z)+1)))
		if got.tau != want.tau || math.Abs(got.q-want.q) > 1e-9*math.Max(1, math.Abs(want.q)) {
			t.Fatalf("trial %d, %d values: best split %+v, the definition gives %+v", trial, len(z), got, want)
		}
	}
}

func steps(rng *rand.Rand, noise float64, levels ...[2]float64) []float64 {
	var s []float64
	for _, l := range levels {
		for range int(l[1]) {
			s = append(s, l[0]*(1+noise*rng.NormFloat64()))
		}
	}
	return s
}

func TestDetect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string]struct {
		series []float64
		want   []int
	}{
		"empty":        {nil, nil},
		"two values":   {[]float64{1, 100}, nil},
		"constant":     {steps(rng, 0, [2]float64{5000, 30}), nil},
		"noise only":   {steps(rng, 0.02, [2]float64{5000, 30}), nil},
		"one drop":     {steps(rng, 0.01, [2]float64{5000, 20}, [2]float64{4500, 10}), []int{20}},
		"drop, rise":   {steps(rng, 0.01, [2]float64{5000, 15}, [2]float64{4000, 15}, [2]float64{5000, 15}), []int{15, 30}},
		"three levels": {steps(rng, 0.005, [2]float64{100, 10}, [2]float64{120, 10}, [2]float64{90, 10}), []int{10, 20}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Detect(tc.series, Defaults)
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, c := range got {
				idx = append(idx, c.Index)
				if c.PValue > Defaults.Alpha {
					t.Errorf("change at %d reported with p-value %g over alpha", c.Index, c.PValue)
				}
			}
			if len(idx) != len(tc.want) {
				t.Fatalf("changes at %v, want %v", idx, tc.want)
			}
			for i := range idx {
				if idx[i] != tc.want[i] {
					t.Fatalf("changes at %v, want %v", idx, tc.want)
				}
			}
		})
	}
}

func TestDetectDescribesTheChange(t *testing.T) {
	series := []float64{100, 101, 99, 100, 102, 98, 100, 100, 101, 99, 90, 91, 89, 90, 90, 90}
	got, err := Detect(series, Defaults)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("changes %+v, want one at 10", got)
	}
	c := got[0]
	if c.Index != 10 || c.Before != (Segment{Start: 0, End: 10, Mean: 100, StdDev: math.Sqrt(1.2)}) ||
		c.After.Start != 10 || c.After.End != 16 || c.After.Mean != 90 {
		t.Errorf("change %+v", c)
	}
	if r := c.Relative(); math.Abs(r+0.1) > 1e-12 {
		t.Errorf("relative change %g, want -0.1", r)
	}
	if c.PValue <= 0 || c.PValue > 0.01 {
		t.Errorf("p-value %g", c.PValue)
	}
}

func TestDetectIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	// A change of about the noise: a case where the permutations decide.
	series := steps(rng, 0.03, [2]float64{1000, 15}, [2]float64{970, 15})
	first, err := Detect(series, Options{Alpha: 0.2, Permutations: 99, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, _ := Detect(series, Options{Alpha: 0.2, Permutations: 99, Seed: 42})
		if len(again) != len(first) {
			t.Fatalf("same seed, different changes: %+v then %+v", first, again)
		}
		for i := range again {
			if again[i] != first[i] {
				t.Fatalf("same seed, different changes: %+v then %+v", first, again)
			}
		}
	}
}

func TestDetectRefusesBadInput(t *testing.T) {
	cases := map[string]struct {
		series []float64
		opt    Options
		want   string
	}{
		"NaN":               {[]float64{1, math.NaN(), 3}, Defaults, "value 1 of the series is NaN"},
		"infinity":          {[]float64{1, 2, math.Inf(1)}, Defaults, "value 2 of the series is +Inf"},
		"alpha 0":           {[]float64{1, 2, 3}, Options{Alpha: 0, Permutations: 99}, "alpha must be between 0 and 1"},
		"alpha 1":           {[]float64{1, 2, 3}, Options{Alpha: 1, Permutations: 99}, "alpha must be between 0 and 1"},
		"no permutations":   {[]float64{1, 2, 3}, Options{Alpha: 0.05}, "permutations must be at least 1"},
		"too few for alpha": {[]float64{1, 2, 3}, Options{Alpha: 0.01, Permutations: 50}, "use at least 99"},
		"too long":          {make([]float64, MaxLength+1), Defaults, "longer than the 5000"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Detect(tc.series, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
