// Package changepoint finds where a series of benchmark results changed, and how surely.
//
// The method is E-divisive means (Matteson and James, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 109(505), 2014, arXiv:1306.4933), the
// method Apache Otava (formerly DataStax's Hunter, which Cassandra's own performance tests
// feed) is built on: split the series where the energy distance between the part before and
// a part after is largest, keep the split if a permutation test finds it significant, and
// repeat within the parts until a split is not. It assumes no distribution, so a latency
// percentile's skew or a throughput's occasional dip does not fool it the way a t-test can.
//
// The permutations come from a seeded generator: the same series and options always find the
// same changes, in a test, in CI and on a laptop.
package changepoint

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Options tune Detect.
type Options struct {
	// Alpha is the largest p-value a change may have and be reported: the false alarm rate
	// of one test on a series with no change.
	Alpha float64
	// Permutations is how many shuffles of the series the test of each change compares it
	// with. The smallest p-value it can give is 1/(Permutations+1), which must be <= Alpha.
	Permutations int
	// Seed seeds the shuffles.
	Seed uint64
}

// Defaults are the options cassbench history and gate use. Alpha 0.01 keeps false alarms on a
// series without change near 1% (simulation_test.go measures it); 499 permutations put the
// smallest p-value at 0.002, well under Alpha, so the test's own randomness rarely decides.
var Defaults = Options{Alpha: 0.01, Permutations: 499, Seed: 1}

// MaxLength bounds a series: the statistic needs a table of pairwise distances per segment,
// quadratic in its length.
const MaxLength = 5000

// Segment describes the runs between two changes.
type Segment struct {
	// Start and End bound the segment: runs [Start, End).
	Start, End int
	// Mean and StdDev of its values (StdDev is the population standard deviation, 0 for one run).
	Mean, StdDev float64
}

// Change is a significant change.
type Change struct {
	// Index is the first run after the change.
	Index int
	// Q is the energy statistic of the split when it was found (Matteson and James' q-hat).
	Q float64
	// PValue is the permutation test's p-value: the share of shuffles of the series, within
	// the segments found before, whose best split was at least as strong.
	PValue float64
	// Before and After are the segments either side of the change in the final split.
	Before, After Segment
}

// Relative is the change of the mean across the change, as a fraction of the mean before:
// -0.05 for a 5% drop. It is NaN when the mean before is 0.
func (c Change) Relative() float64 {
	if c.Before.Mean == 0 {
		return math.NaN()
	}
	return c.After.Mean/c.Before.Mean - 1
}

// Detect finds the significant changes of series, in the order of the series. A series
// shorter than 3 has none; one with a NaN or an infinity is an error.
func Detect(series []float64, opt Options) ([]Change, error) {
	if err := check(series, opt); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x636173736265)) //nolint:gosec // a reproducible test, not a secret
	bounds := []int{0, len(series)}                        // segment i is [bounds[i], bounds[i+1])
	type found struct {
		index     int
		q, pvalue float64
	}
	var changes []found
	shuffled := make([]float64, len(series))
	scratch := make([]float64, (len(series)+1)*(len(series)+1))
	// Once this many shuffles split at least as strongly, the p-value is over alpha whatever
	// the rest do: stopping there changes no decision, and a series without change costs a
	// few dozen shuffles instead of all of them.
	enough := int(math.Floor(opt.Alpha*float64(opt.Permutations+1) + 1e-9)) // atLeast+1 > alpha(R+1)
	for len(series) >= 3 {
		best, ok := bestSplit(series, bounds, scratch)
		if !ok {
			break
		}
		copy(shuffled, series)
		atLeast := 0
		for r := 0; r < opt.Permutations && atLeast < enough; r++ {
			for i := 0; i+1 < len(bounds); i++ {
				seg := shuffled[bounds[i]:bounds[i+1]]
				rng.Shuffle(len(seg), func(a, b int) { seg[a], seg[b] = seg[b], seg[a] })
			}
			if p, ok := bestSplit(shuffled, bounds, scratch); ok && p.q >= best.q {
				atLeast++
			}
		}
		// The observed split counts as one of the permutations: p is never 0 (Davison and
		// Hinkley's estimate; Otava's leaves the +1 out of the numerator).
		pvalue := float64(atLeast+1) / float64(opt.Permutations+1)
		if atLeast >= enough || pvalue > opt.Alpha {
			break
		}
		changes = append(changes, found{best.tau, best.q, pvalue})
		bounds = insertSorted(bounds, best.tau)
	}
	out := make([]Change, 0, len(changes))
	for _, f := range changes {
		i := indexOf(bounds, f.index)
		out = append(out, Change{Index: f.index, Q: f.q, PValue: f.pvalue,
			Before: segment(series, bounds[i-1], bounds[i]), After: segment(series, bounds[i], bounds[i+1])})
	}
	sortChanges(out)
	return out, nil
}

func check(series []float64, opt Options) error {
	if len(series) > MaxLength {
		return fmt.Errorf("a series of %d values is longer than the %d the detection takes", len(series), MaxLength)
	}
	for i, v := range series {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value %d of the series is %v: every value must be a number", i, v)
		}
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return fmt.Errorf("alpha must be between 0 and 1, not %g", opt.Alpha)
	}
	if opt.Permutations < 1 {
		return errors.New("permutations must be at least 1")
	}
	if minP := 1 / float64(opt.Permutations+1); minP > opt.Alpha {
		return fmt.Errorf("%d permutations cannot give a p-value under %g (the smallest is %.3g): use at least %d",
			opt.Permutations, opt.Alpha, minP, int(math.Ceil(1/opt.Alpha))-1)
	}
	return nil
}

// split is a candidate: segment [start, kappa) of the series split at tau.
type split struct {
	tau int
	q   float64
}

// bestSplit finds the strongest split over all segments; ties go to the earliest, as in
// Otava. It is false when no segment has two values.
func bestSplit(series []float64, bounds []int, scratch []float64) (split, bool) {
	best, ok := split{q: math.Inf(-1)}, false
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i+1]-bounds[i] < 2 {
			continue
		}
		s := bestInSegment(series[bounds[i]:bounds[i+1]], scratch)
		if s.q > best.q {
			best, ok = split{tau: bounds[i] + s.tau, q: s.q}, true
		}
	}
	return best, ok
}

// bestInSegment maximizes, over 0 < tau < kappa <= len(z), the energy statistic of
// X = z[:tau] against Y = z[tau:kappa] (n and m values):
//
//	Q = 2/(n+m) Σ|Xi-Yj| - 2m/((n+m)(n-1)) Σi<k |Xi-Xk| - 2n/((n+m)(m-1)) Σj<k |Yj-Yk|
//
// (Matteson and James' q-hat with alpha = 1: mn/(m+n) times the empirical energy distance;
// a within-sum over one value is 0). Block sums of the pairwise distances, from a table of
// their prefix sums, make each (tau, kappa) constant time.
func bestInSegment(z []float64, scratch []float64) split {
	n := len(z)
	w := n + 1
	// p[i*w+j] is the sum of |z[a]-z[b]| over a < i, b < j; row 0 and column 0 are 0.
	p := scratch[:w*w]
	clear(p[:w])
	for i := 1; i <= n; i++ {
		p[i*w] = 0
	}
	for i := 1; i <= n; i++ {
		row := 0.0
		for j := 1; j <= n; j++ {
			row += math.Abs(z[i-1] - z[j-1])
			p[i*w+j] = p[(i-1)*w+j] + row
		}
	}
	block := func(a, b, c, d int) float64 { // rows [a,b), columns [c,d)
		return p[b*w+d] - p[a*w+d] - p[b*w+c] + p[a*w+c]
	}
	best := split{q: math.Inf(-1)}
	for tau := 1; tau < n; tau++ {
		nx := float64(tau)
		withinX := block(0, tau, 0, tau) / 2
		for kappa := tau + 1; kappa <= n; kappa++ {
			my := float64(kappa - tau)
			q := 2 * block(0, tau, tau, kappa) / (nx + my)
			if tau > 1 {
				q -= 2 * my * withinX / ((nx + my) * (nx - 1))
			}
			if kappa-tau > 1 {
				q -= 2 * nx * (block(tau, kappa, tau, kappa) / 2) / ((nx + my) * (my - 1))
			}
			if q > best.q {
				best = split{tau: tau, q: q}
			}
		}
	}
	return best
}

func segment(series []float64, start, end int) Segment {
	s := Segment{Start: start, End: end}
	k := float64(end - start)
	for _, v := range series[start:end] {
		s.Mean += v
	}
	s.Mean /= k
	for _, v := range series[start:end] {
		s.StdDev += (v - s.Mean) * (v - s.Mean)
	}
	s.StdDev = math.Sqrt(s.StdDev / k)
	return s
}

func insertSorted(bounds []int, v int) []int {
	i := indexOf(bounds, v)
	bounds = append(bounds, 0)
	copy(bounds[i+1:], bounds[i:])
	bounds[i] = v
	return bounds
}

// indexOf is the first position in sorted bounds whose value is >= v.
func indexOf(bounds []int, v int) int {
	i := 0
	for i < len(bounds) && bounds[i] < v {
		i++
	}
	return i
}

func sortChanges(cs []Change) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Index < cs[j-1].Index; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}
