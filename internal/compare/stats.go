// Package compare tells whether one experiment did better than another or whether the
// difference is noise: Welch's t-test on throughput samples, and confidence intervals for
// latency percentiles from the runs' merged sketches. Pure functions; cmd/cassbench reads
// the experiments and renders the verdicts.
package compare

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/cassbench/cassbench/internal/sketch"
)

// Welch is the two-sided Welch's t-test of the means of a and b (unequal variances): the
// p-value, and false when either side has fewer than two samples or both have no variance.
func Welch(a, b []float64) (p float64, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, false
	}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	na, nb := float64(len(a)), float64(len(b))
	se2 := va/na + vb/nb
	if se2 == 0 {
		if ma == mb {
			return 1, true
		}
		return 0, true
	}
	t := (mb - ma) / math.Sqrt(se2)
	// Welch-Satterthwaite degrees of freedom.
	df := se2 * se2 / ((va/na)*(va/na)/(na-1) + (vb/nb)*(vb/nb)/(nb-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return 2 * (1 - dist.CDF(math.Abs(t))), true
}

func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// Mean of xs; 0 for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Interval is a confidence interval.
type Interval struct{ Low, High float64 }

// Contains tells whether v lies in the interval.
func (i Interval) Contains(v float64) bool { return i.Low <= v && v <= i.High }

// bootstrapRounds is how many resamples BootstrapDiff draws: enough for a stable 95%
// interval, cheap with sketches (a merge is a few hundred additions).
const bootstrapRounds = 2000

// BootstrapDiff is the confidence interval, at level 1-alpha, of the relative difference
// (qB - qA) / qA between quantile q of side B and of side A, each side a set of repeats:
// resampling whole runs with replacement and merging their sketches captures the run-to-run
// variation that is the real noise of a benchmark. Each side needs two runs or more.
func BootstrapDiff(a, b []*sketch.Sketch, q, alpha float64, seed uint64) (Interval, bool) {
	if len(a) < 2 || len(b) < 2 {
		return Interval{}, false
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	diffs := make([]float64, 0, bootstrapRounds)
	for range bootstrapRounds {
		qa, qb := resampled(a, q, r), resampled(b, q, r)
		if qa > 0 {
			diffs = append(diffs, (qb-qa)/qa)
		}
	}
	if len(diffs) < bootstrapRounds/2 {
		return Interval{}, false
	}
	sort.Float64s(diffs)
	lo := diffs[int(alpha/2*float64(len(diffs)-1))]
	hi := diffs[int((1-alpha/2)*float64(len(diffs)-1))]
	return Interval{lo, hi}, true
}

func resampled(runs []*sketch.Sketch, q float64, r *rand.Rand) float64 {
	m := sketch.New()
	for range runs {
		m.Merge(runs[r.IntN(len(runs))])
	}
	return m.Quantile(q)
}
