package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
)

// The worked example of Welch's test (two samples of 15, means 20.8 and 23.0): t = 2.46 on
// 25 degrees of freedom, p = 0.021.
func TestWelchKnownExample(t *testing.T) {
	a := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	b := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	p, ok := Welch(a, b)
	if !ok || math.Abs(p-0.021) > 0.001 {
		t.Errorf("p = %.4f (%v), want 0.021", p, ok)
	}
	if _, ok := Welch(a[:1], b); ok {
		t.Error("a t-test on one sample")
	}
}

// run is a run with a 60-interval timeline around opsPerSecond (noise sd 2%) and a
// response sketch of lognormal latencies around median microseconds.
func run(seed uint64, opsPerSecond, median float64) *cbv1.BenchmarkRun {
	r := rand.New(rand.NewPCG(seed, seed+1))
	tl := &cbv1.Timeline{IntervalMillis: 1000}
	var total float64
	for i := range 60 {
		v := opsPerSecond * (1 + 0.02*r.NormFloat64())
		total += v
		tl.Points = append(tl.Points, cbv1.TimelinePoint{OffsetMillis: int64(i) * 1000, OpsPerSecond: int64(v), Operations: int64(v)})
	}
	sk := sketch.New()
	for range 50000 {
		sk.Add(median * math.Exp(0.5*r.NormFloat64()))
	}
	res := &cbv1.Results{WindowMillis: 60000, OpsPerSecond: int64(total / 60), Timeline: tl,
		Sketches: &cbv1.ResultSketches{WritesResponse: results.Encode(sk)}}
	return &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{Results: res}}
}

func verdicts(c Comparison) map[string]string {
	out := map[string]string{}
	for _, r := range c.Rows {
		out[r.Metric] = r.Verdict
	}
	return out
}

func TestCompareSingleRuns(t *testing.T) {
	base := Side{Name: "a", Runs: []*cbv1.BenchmarkRun{run(1, 10000, 1000)}}
	cases := map[string]struct {
		side     Side
		ops, p99 string
	}{
		// One run a side: throughput from the timelines; percentiles need repeats.
		"faster and slower":    {Side{Name: "b", Runs: []*cbv1.BenchmarkRun{run(2, 11000, 1400)}}, Better, TooLittleData},
		"the same, other data": {Side{Name: "c", Runs: []*cbv1.BenchmarkRun{run(3, 10000, 1000)}}, NoDifference, TooLittleData},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := Compare(base, tc.side, 0.05)
			v := verdicts(c)
			if v["ops/s"] != tc.ops || v["p99"] != tc.p99 {
				t.Errorf("ops/s %q (want %q), p99 %q (want %q): %+v", v["ops/s"], tc.ops, v["p99"], tc.p99, c.Rows)
			}
		})
	}
}

// Repeats are the samples when both sides have them; two runs of one repeat are too few.
func TestCompareRepeats(t *testing.T) {
	a := Side{Name: "a", Runs: []*cbv1.BenchmarkRun{run(1, 10000, 1000), run(2, 10100, 1020), run(3, 9900, 990)}}
	b := Side{Name: "b", Runs: []*cbv1.BenchmarkRun{run(4, 12000, 1500), run(5, 12100, 1480), run(6, 11900, 1530)}}
	c := Compare(a, b, 0.05)
	if v := verdicts(c); v["ops/s"] != Better || v["p50"] != Worse || v["p99"] != Worse {
		t.Errorf("verdicts %v", v)
	}
	if c.Rows[1].Interval == nil || c.Rows[0].PValue == nil {
		t.Errorf("no interval or p-value: %+v", c.Rows)
	}
	same := Side{Name: "a2", Runs: []*cbv1.BenchmarkRun{run(7, 10050, 1010), run(8, 9950, 995), run(9, 10000, 1005)}}
	if v := verdicts(Compare(a, same, 0.05)); v["ops/s"] != NoDifference || v["p99"] != NoDifference {
		t.Errorf("repeats of the same configuration: %v", v)
	}
	short := Side{Name: "s", Runs: []*cbv1.BenchmarkRun{{Status: cbv1.BenchmarkRunStatus{Results: &cbv1.Results{OpsPerSecond: 5}}}}}
	if v := verdicts(Compare(short, short, 0.05)); v["ops/s"] != TooLittleData || v["p50"] != TooLittleData {
		t.Errorf("runs without timelines or sketches: %v", v)
	}
}
