package compare

import (
	"fmt"
	"math"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
)

// Side is one experiment: a run, or the repeats of one configuration.
type Side struct {
	Name string
	Runs []*cbv1.BenchmarkRun
}

// Verdicts.
const (
	Better        = "better"
	Worse         = "worse"
	NoDifference  = "no significant difference"
	TooLittleData = "too little data to tell"
)

// Row compares one figure of a side with the baseline's.
type Row struct {
	Metric string `json:"metric"`
	// Baseline and Value are the figure on each side (ops/s, or microseconds).
	Baseline float64 `json:"baseline"`
	Value    float64 `json:"value"`
	// DiffPercent is (Value - Baseline) / Baseline, in percent.
	DiffPercent float64 `json:"diffPercent"`
	// PValue of Welch's t-test, for throughput.
	PValue *float64 `json:"pValue,omitempty"`
	// Interval is the confidence interval of DiffPercent, for percentiles.
	Interval *Interval `json:"intervalPercent,omitempty"`
	// Significant says the difference is not noise at the chosen level.
	Significant bool   `json:"significant"`
	Verdict     string `json:"verdict"`
	// Method says how significance was judged, and on what samples.
	Method string `json:"method"`
}

// Comparison is a side against the baseline.
type Comparison struct {
	Baseline string  `json:"baseline"`
	Name     string  `json:"name"`
	Alpha    float64 `json:"alpha"`
	Rows     []Row   `json:"rows"`
}

// minSamples is the fewest samples a side needs for a t-test to say anything.
const minSamples = 3

// Percentiles compared, as the results report them.
var Percentiles = []struct {
	Name string
	Q    float64
}{{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p999", 0.999}}

// Compare compares side b with the baseline a at significance level alpha.
func Compare(a, b Side, alpha float64) Comparison {
	out := Comparison{Baseline: a.Name, Name: b.Name, Alpha: alpha}
	out.Rows = append(out.Rows, throughput(a, b, alpha))
	sa, sb := sketches(a), sketches(b)
	ma, mb := merged(sa), merged(sb)
	for i, p := range Percentiles {
		out.Rows = append(out.Rows, percentile(p.Name, p.Q, sa, sb, ma, mb, alpha, uint64(i)))
	}
	return out
}

// throughput compares achieved ops/s: across repeats when both sides have several runs
// (independent samples), else across the intervals of their timelines (samples of one run
// each, which are correlated in time: the verdict is about that pair of runs).
func throughput(a, b Side, alpha float64) Row {
	row := Row{Metric: "ops/s", Baseline: opsPerSecond(a), Value: opsPerSecond(b)}
	row.DiffPercent = diff(row.Baseline, row.Value)
	xa, xb := repeatsOps(a), repeatsOps(b)
	row.Method = fmt.Sprintf("Welch's t-test over %d and %d repeats", len(xa), len(xb))
	if len(xa) < 2 || len(xb) < 2 {
		xa, xb = intervalOps(a), intervalOps(b)
		row.Method = fmt.Sprintf("Welch's t-test over %d and %d timeline intervals", len(xa), len(xb))
	}
	if len(xa) < minSamples || len(xb) < minSamples {
		row.Verdict = TooLittleData
		row.Method += fmt.Sprintf(": fewer than %d samples on a side", minSamples)
		return row
	}
	p, ok := Welch(xa, xb)
	if !ok {
		row.Verdict = TooLittleData
		return row
	}
	row.PValue = &p
	row.Significant = p < alpha
	row.Verdict = verdict(row.Significant, row.Value > row.Baseline)
	return row
}

// percentile compares quantile q of the sides' response latency; lower is better.
func percentile(name string, q float64, sa, sb []*sketch.Sketch, ma, mb *sketch.Sketch, alpha float64, seed uint64) Row {
	row := Row{Metric: name}
	if ma == nil || mb == nil {
		row.Verdict, row.Method = TooLittleData, "no latency sketches on a side (results written before sketches were kept)"
		return row
	}
	row.Baseline, row.Value = ma.Quantile(q), mb.Quantile(q)
	row.DiffPercent = diff(row.Baseline, row.Value)
	// A difference within the sketches' own accuracy is not one.
	resolution := 100 * (ma.RelativeAccuracy() + mb.RelativeAccuracy())
	if ci, ok := BootstrapDiff(sa, sb, q, alpha, seed); ok {
		iv := Interval{100 * ci.Low, 100 * ci.High}
		row.Interval = &iv
		row.Significant = !iv.Contains(0) && math.Abs(row.DiffPercent) > resolution
		row.Method = fmt.Sprintf("bootstrap over %d and %d repeats' sketches, %.0f%% interval", len(sa), len(sb), 100*(1-alpha))
	} else {
		// Within one run the sampling error of a percentile is tiny, but two runs of the same
		// spec differ by more than that (other connections, other token ranges, the machine):
		// measured here, two identical runs differed by 23% at p50 under load. Only repeats
		// measure that variation.
		row.Verdict = TooLittleData
		row.Method = fmt.Sprintf("percentiles need two or more runs a side (%d and %d here): repeat the runs and join them with commas", len(sa), len(sb))
		return row
	}
	row.Verdict = verdict(row.Significant, row.Value < row.Baseline)
	return row
}

func verdict(significant, improved bool) string {
	switch {
	case !significant:
		return NoDifference
	case improved:
		return Better
	}
	return Worse
}

func diff(base, v float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * (v - base) / base
}

func opsPerSecond(s Side) float64 {
	return Mean(repeatsOps(s))
}

func repeatsOps(s Side) []float64 {
	var out []float64
	for _, r := range s.Runs {
		if res := r.Status.Results; res != nil {
			out = append(out, float64(res.OpsPerSecond))
		}
	}
	return out
}

// intervalOps are the timelines' whole intervals: each run's last, partial one is left out.
func intervalOps(s Side) []float64 {
	var out []float64
	for _, r := range s.Runs {
		res := r.Status.Results
		if res == nil || res.Timeline == nil {
			continue
		}
		pts := res.Timeline.Points
		for i, p := range pts {
			if i == len(pts)-1 && res.WindowMillis > 0 && p.OffsetMillis+res.Timeline.IntervalMillis > res.WindowMillis {
				continue
			}
			out = append(out, float64(p.OpsPerSecond))
		}
	}
	return out
}

// sketches are each run's response latency sketch: writes, or reads for a read-only run.
func sketches(s Side) []*sketch.Sketch {
	var out []*sketch.Sketch
	for _, r := range s.Runs {
		sk, err := results.ResponseSketch(r.Status.Results)
		if err != nil || sk == nil {
			return nil
		}
		out = append(out, sk)
	}
	return out
}

func merged(ss []*sketch.Sketch) *sketch.Sketch {
	if len(ss) == 0 {
		return nil
	}
	m := sketch.New()
	for _, s := range ss {
		m.Merge(s)
	}
	return m
}
