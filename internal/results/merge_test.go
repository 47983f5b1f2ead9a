package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

func sketchOf(values []float64) *sketch.Sketch {
	s := sketch.New()
	for _, v := range values {
		s.Add(v)
	}
	return s
}

func TestMergeCounts(t *testing.T) {
	one := func(i int32, start, end int64, ok, wto int64, err string) *summary.Summary {
		return &summary.Summary{Version: summary.Version, Index: i, Writers: 3, Start: start, End: end, Error: err,
			Writes: &summary.Ops{OK: ok, WriteTimeout: wto, Retries: wto * 2, Attempts: summary.Failures{WriteTimeout: wto * 3}, Bytes: ok * 100,
				Response: sketchOf([]float64{1000}), Service: sketchOf([]float64{900})}}
	}
	skewed := one(1, 4500, 14500, 20000, 0, "aborted: error budget")
	skewed.OffsetMillis = 3000 // its clock is 3 s ahead of Cassandra's
	got := Merge([]*summary.Summary{
		one(2, 1000, 11000, 30000, 0, ""),
		nil, // a writer that has not reported
		one(0, 1000, 11000, 10000, 10, ""),
		skewed,
		one(3, 0, 0, 0, 0, "start barrier: saw 3 of 4 writers"), // failed before measuring
	})
	if got == nil {
		t.Fatal("no results")
	}
	want := map[string]any{
		"window": got.WindowMillis, "spread": got.StartSpreadMillis, "offset": got.MaxClockOffsetMillis,
		"reported": got.WritersReported, "ops": got.Operations, "ops/s": got.OpsPerSecond, "outside": got.OperationsOutsideWindow,
		"wto": got.Errors.WriteTimeout, "per op": got.TimeoutsPerOperation, "per attempt": got.TimeoutsPerAttempt,
		"attempts": got.Attempts, "retries": got.Retries, "bytes": got.Bytes,
		"fastest": got.Fastest.Index, "slowest": got.Slowest.Index, "writers": len(got.PerWriter),
		"outcome1": got.PerWriter[1].Outcome, "reads": got.Reads == nil,
	}
	if diff := cmp.Diff(map[string]any{
		// The skewed writer's window, corrected, is 1500..11500: the shared window is 1500..11000.
		"window": int64(9500), "spread": int64(500), "offset": int64(3000),
		// The completions inside the shared window over it (writers without a timeline at
		// their own average rate): 95% of each writer's, 57,000 in 9.5 s; the rest outside.
		"reported": int32(4), "ops": int64(60000), "ops/s": int64(6000), "outside": int64(3000),
		"wto": int64(10), "per op": "0.000167", "per attempt": "0.0005",
		"attempts": int64(60030), "retries": int64(20), "bytes": int64(6000000),
		"fastest": int32(2), "slowest": int32(3), "writers": 4,
		"outcome1": "Failed: aborted: error budget", "reads": true,
	}, want); diff != "" {
		t.Error(diff)
	}
	if Merge(nil) != nil || Merge([]*summary.Summary{nil}) != nil {
		t.Error("results from no summaries")
	}
}

// A percentile that a writer's shrunk report only bounds is named as a bound, and every
// latency block says at which accuracy it was computed.
// Writers that all failed before their first send (an observer that could not reach its
// datacenter, a refused login) measured no window: there are no results to merge, only
// their errors. Results without the window the API requires were written to status once,
// refused, and the run never finished.
func TestNoResultsWhenEveryWriterFailedBeforeMeasuring(t *testing.T) {
	failed := func(i int32, err string) *summary.Summary {
		return &summary.Summary{Version: summary.Version, Index: i, Writers: 2, Error: err}
	}
	if got := Merge([]*summary.Summary{failed(0, "observing datacenter dc2: no response"), nil, failed(1, "start barrier: saw 1 of 2 writers")}); got != nil {
		t.Errorf("results %+v from writers that measured nothing; want none", got)
	}
	if got := Merge([]*summary.Summary{failed(0, "observing datacenter dc2: no response"),
		{Version: summary.Version, Index: 1, Writers: 2, Start: 1000, End: 2000, Writes: &summary.Ops{OK: 10}}}); got == nil || got.WindowStart.IsZero() || got.WritersReported != 2 {
		t.Errorf("results %+v: want the measuring writer's window, both writers reported", got)
	}
}

func TestMergedAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var vs []float64
	for range 20000 {
		vs = append(vs, 300*math.Exp(1.5*r.NormFloat64()))
	}
	fine, shrunk := sketchOf(vs), sketchOf(vs)
	shrunk.CollapseBelow(0.99)
	coarse := sketchOf(vs)
	coarse.Coarsen(1)
	got := Merge([]*summary.Summary{
		{Index: 0, Start: 1, End: 1001, Writes: &summary.Ops{OK: 20000, Response: fine, Service: fine}},
		{Index: 1, Start: 1, End: 1001, Writes: &summary.Ops{OK: 20000, Response: shrunk, Service: coarse}},
	}).Writes
	if got.Service.RelativeAccuracy != "0.02" || len(got.Service.UpperBounds) != 0 {
		t.Errorf("service latency: accuracy %q, bounds %v", got.Service.RelativeAccuracy, got.Service.UpperBounds)
	}
	if got.Response.RelativeAccuracy != "0.01" || !slices.Equal(got.Response.UpperBounds, []string{"p50", "p90"}) {
		t.Errorf("response latency: accuracy %q, bounds %v", got.Response.RelativeAccuracy, got.Response.UpperBounds)
	}
}

// The merged p99 is the p99 of all operations, which averaging writers' p99s gets wrong when
// one writer is much slower than the rest.
func TestMergedPercentilesComeFromTheUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var union []float64
	var summaries []*summary.Summary
	var avgP99 float64
	for i, median := range []float64{500, 600, 20000} {
		var vs []float64
		for j := 0; j < 10000; j++ {
			vs = append(vs, median*math.Exp(0.3*r.NormFloat64()))
		}
		union = append(union, vs...)
		s := sketchOf(vs)
		avgP99 += s.Quantile(0.99) / 3
		summaries = append(summaries, &summary.Summary{Index: int32(i), Start: 1, End: 1001,
			Writes: &summary.Ops{OK: 10000, Response: s, Service: s}})
	}
	sort.Float64s(union)
	want := union[int(0.99*float64(len(union)-1))]
	got := float64(Merge(summaries).Writes.Response.P99)
	if math.Abs(got-want)/want > sketch.Accuracy+0.001 {
		t.Errorf("merged p99 %v, union p99 %v", got, want)
	}
	if math.Abs(avgP99-want)/want < 0.1 {
		t.Fatalf("test data does not separate merging from averaging (avg %v)", avgP99)
	}
}

func TestRatio(t *testing.T) {
	cases := map[string]struct {
		n, d int64
		want string
	}{
		"none":        {0, 100, "0"},
		"no attempts": {5, 0, "0"},
		"small":       {65, 10000, "0.0065"},
		"rounded":     {1, 3, "0.333333"},
		"all":         {7, 7, "1"},
	}
	for name, tc := range cases {
		if got := Ratio(tc.n, tc.d); got != tc.want {
			t.Errorf("%s: Ratio(%d, %d) = %s, want %s", name, tc.n, tc.d, got, tc.want)
		}
	}
}

func TestLatencyOfNothing(t *testing.T) {
	if diff := cmp.Diff(cbv1.Latency{}, Latency(nil)); diff != "" {
		t.Error(diff)
	}
}
