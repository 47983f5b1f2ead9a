package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// steady is a writer that completed perSecond operations a second, none failed, from start
// for seconds, with a timeline of one-second points, on a clock offset ms ahead of
// Cassandra's.
func steady(index int32, start, seconds, perSecond, offset int64) *summary.Summary {
	tl := &summary.Timeline{IntervalMillis: 1000}
	for range seconds {
		tl.Points = append(tl.Points, summary.Point{Ops: perSecond, P99: 2000})
	}
	return &summary.Summary{Version: summary.Version, Index: index, Writers: 2,
		Start: start + offset, End: start + offset + seconds*1000, OffsetMillis: offset,
		SpanMicros: seconds * 1e6, Timeline: tl,
		Writes: &summary.Ops{OK: seconds * perSecond, Response: sketchOf([]float64{1000}), Service: sketchOf([]float64{900})}}
}

func TestThroughputIsTheCommonWindows(t *testing.T) {
	tests := map[string]struct {
		sums           []*summary.Summary
		window, ops    int64
		opsPerSecond   int64
		outside        int64
		perWriterRates []int64
		timelineOps    []int64
	}{
		// Each at 1,000 ops/s for 10 s; together 2,000 ops/s where both ran.
		"together": {
			sums:   []*summary.Summary{steady(0, 100_000, 10, 1000, 0), steady(1, 100_000, 10, 1000, 0)},
			window: 10_000, ops: 20_000, opsPerSecond: 2000, outside: 0, perWriterRates: []int64{1000, 1000},
			timelineOps: []int64{2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000},
		},
		// Back to back: no common window, so the whole stretch, 20 s, where 1,000 ops/s
		// completed (adding each writer's own rate said 2,000).
		"back to back": {
			sums:   []*summary.Summary{steady(0, 100_000, 10, 1000, 0), steady(1, 110_000, 10, 1000, 0)},
			window: 20_000, ops: 20_000, opsPerSecond: 1000, outside: 0, perWriterRates: []int64{1000, 1000},
		},
		// Overlapping by one second (writer 1's clock 5 s ahead, corrected): 2,000 in the
		// common second, 18,000 outside it.
		"barely overlapping": {
			sums:   []*summary.Summary{steady(0, 100_000, 10, 1000, 0), steady(1, 109_000, 10, 1000, 5000)},
			window: 1000, ops: 20_000, opsPerSecond: 2000, outside: 18_000, perWriterRates: []int64{1000, 1000},
			timelineOps: []int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 2000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000},
		},
		// Half a point apart: the timeline shares each writer's points between the merged
		// ones they overlap, and keeps every operation.
		"half a second apart": {
			sums:   []*summary.Summary{steady(0, 100_000, 4, 1000, 0), steady(1, 100_500, 4, 1000, 0)},
			window: 3500, ops: 8000, opsPerSecond: 2000, outside: 1000, perWriterRates: []int64{1000, 1000},
			timelineOps: []int64{1500, 2000, 2000, 2000, 500},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := Merge(tc.sums)
			got := []int64{r.WindowMillis, r.Operations, r.OpsPerSecond, r.OperationsOutsideWindow}
			if diff := cmp.Diff([]int64{tc.window, tc.ops, tc.opsPerSecond, tc.outside}, got); diff != "" {
				t.Errorf("window, operations, ops/s, outside (-want +got):\n%s", diff)
			}
			var rates []int64
			for _, w := range r.PerWriter {
				rates = append(rates, w.OpsPerSecond)
			}
			if diff := cmp.Diff(tc.perWriterRates, rates); diff != "" {
				t.Errorf("each writer's own rate (-want +got):\n%s", diff)
			}
			if r.Writes.OpsPerSecond != r.OpsPerSecond {
				t.Errorf("writes at %d ops/s in a run of writes only at %d", r.Writes.OpsPerSecond, r.OpsPerSecond)
			}
			if tc.timelineOps == nil {
				return
			}
			var ops []int64
			var total int64
			for _, p := range r.Timeline.Points {
				ops = append(ops, p.Operations)
				total += p.Operations
			}
			if diff := cmp.Diff(tc.timelineOps, ops); diff != "" {
				t.Errorf("timeline operations (-want +got):\n%s", diff)
			}
			if total != tc.ops {
				t.Errorf("the timeline holds %d operations of %d", total, tc.ops)
			}
		})
	}
}

// A writer that sent no timeline is named, not silently left out.
func TestTimelineNamesWritersWithout(t *testing.T) {
	bare := steady(1, 100_000, 10, 1000, 0)
	bare.Timeline = nil
	r := Merge([]*summary.Summary{steady(0, 100_000, 10, 1000, 0), bare})
	want := &cbv1.Timeline{WritersMissing: 1, FirstWritersMissing: []int32{1}}
	if r.Timeline == nil || r.Timeline.WritersMissing != want.WritersMissing || !cmp.Equal(r.Timeline.FirstWritersMissing, want.FirstWritersMissing) {
		t.Errorf("timeline %+v; want writer 1 named as missing", r.Timeline)
	}
}

// Timelines of writers that started together merge at the coarsest interval, point by point.
func TestAlignTimelinesAtTheCoarsestInterval(t *testing.T) {
	fine := placed{index: 0, start: 1000, end: 4000, timeline: &summary.Timeline{IntervalMillis: 1000,
		Points: []summary.Point{{Ops: 10, Errors: 1, P99: 100}, {Ops: 20, P99: 300}, {Ops: 30, Errors: 2, P99: 200}}}}
	coarse := placed{index: 1, start: 1000, end: 3000, timeline: &summary.Timeline{IntervalMillis: 2000, Points: []summary.Point{{Ops: 5, P99: 1000}}}}
	got, origin, missing := alignTimelines([]placed{fine, coarse, {index: 2, start: 1000, end: 4000}})
	want := &summary.Timeline{IntervalMillis: 2000, Points: []summary.Point{{Ops: 35, Errors: 1, P99: 1000}, {Ops: 30, Errors: 2, P99: 200}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged timeline (-want +got):\n%s", diff)
	}
	if origin != 1000 || !cmp.Equal(missing, []int32{2}) {
		t.Errorf("origin %d, missing %v; want 1000, [2]", origin, missing)
	}
}

// The server timeline shares the client timeline's origin: writer 1 started its window 2 s
// after writer 0 on a clock 500 ms ahead, so its samples land 2 s later on the shared axis.
func TestServerTimelineSharesTheClientOrigin(t *testing.T) {
	a, b := steady(0, 100_000, 10, 1000, 0), steady(1, 102_000, 8, 1000, 500)
	for _, s := range []*summary.Summary{a, b} {
		tl := &summary.ServerTimeline{FromMillis: s.Start, IntervalMillis: 1000}
		for i := range 4 {
			tl.Points = append(tl.Points, summary.ServerPoint{AtMillis: int64(i+1) * 1000, Pending: int64(s.Index + 1), Flushes: 1})
		}
		s.Server = &summary.Server{Timeline: tl}
	}
	r := Merge([]*summary.Summary{a, b})
	if r.Server == nil || r.Server.Timeline == nil {
		t.Fatalf("no server timeline: %+v", r.Server)
	}
	var got []cbv1.ServerTimelinePoint
	got = append(got, r.Server.Timeline.Points...)
	want := []cbv1.ServerTimelinePoint{
		{OffsetMillis: 0, PendingPeak: 1, Flushes: 1}, {OffsetMillis: 1000, PendingPeak: 1, Flushes: 1},
		{OffsetMillis: 2000, PendingPeak: 2, Flushes: 2}, {OffsetMillis: 3000, PendingPeak: 2, Flushes: 2},
		{OffsetMillis: 4000, PendingPeak: 2, Flushes: 1}, {OffsetMillis: 5000, PendingPeak: 2, Flushes: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" || r.Server.Timeline.IntervalMillis != 1000 {
		t.Errorf("every %d ms (-want +got):\n%s", r.Server.Timeline.IntervalMillis, diff)
	}
}

// A node read through its metrics endpoint has CPU but no core count; the datacenter's CPU
// limit the controller passes is what it could use, and the verdict judges it. A local
// node's own allowance is kept.
func TestMergeWithTheDatacentersCPULimit(t *testing.T) {
	s := steady(0, 100_000, 10, 1000, 0)
	s.CPU = &summary.WriterCPU{UsedMillicores: 100, LimitMillicores: 1000, Concurrency: 4}
	s.Server = &summary.Server{Nodes: []summary.ServerNode{
		{Node: "10.0.0.1", CPUMillicores: 1950, GCSource: summary.GCFromMetrics},
		{Node: "127.0.0.1", CPUMillicores: 500, CPUCores: 1, CPULimitMillicores: 1000},
	}}
	r := MergeWith([]*summary.Summary{s}, Options{NodeCPULimitMillicores: 2000})
	got := map[string]int64{}
	for _, n := range r.Server.Nodes {
		got[n.Node] = n.CPULimitMillicores
	}
	if diff := cmp.Diff(map[string]int64{"10.0.0.1": 2000, "127.0.0.1": 1000}, got); diff != "" {
		t.Errorf("CPU limits (-want +got):\n%s", diff)
	}
	if r.Bottleneck == nil || r.Bottleneck.Verdict != cbv1.BottleneckCluster ||
		r.Bottleneck.Evidence[0] != "node 10.0.0.1's CPU was saturated: it used 1.9 cores of the 2.0 cores it could use (97%)" {
		t.Errorf("verdict %+v, want Cluster naming node 10.0.0.1's CPU", r.Bottleneck)
	}
	if r := Merge([]*summary.Summary{s}); r.Bottleneck.Verdict == cbv1.BottleneckCluster {
		t.Errorf("without the limit the endpoint's node cannot be judged saturated: %+v", r.Bottleneck)
	}
}

// withTimeline is a writer whose first send is at start and last completion at end, on
// Cassandra's clock, with a timeline of interval ms whose points hold ops.
func withTimeline(start, end, interval int64, ops ...int64) *summary.Summary {
	tl := &summary.Timeline{IntervalMillis: interval}
	var total int64
	for _, n := range ops {
		tl.Points = append(tl.Points, summary.Point{Ops: n, P99: 2000})
		total += n
	}
	return &summary.Summary{Version: summary.Version, Writers: 1, Start: start, End: end,
		SpanMicros: (end - start) * 1000, Timeline: tl,
		Writes: &summary.Ops{OK: total, Response: sketchOf([]float64{1000}), Service: sketchOf([]float64{900})}}
}

// A window that does not end on an interval boundary ends in a partial interval, whose rate
// is its operations over the time it covered.
func TestTheLastIntervalIsItsOperationsOverItsTime(t *testing.T) {
	type pt struct{ offset, ops, rate int64 }
	tests := map[string]struct {
		sum  *summary.Summary
		want []pt
	}{
		// 15 s at 500 ops/s in 2 s intervals: the last covers 1 s, 500 operations.
		"2 s intervals": {sum: withTimeline(100_000, 115_000, 2000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500),
			want: []pt{{0, 1000, 500}, {2000, 1000, 500}, {4000, 1000, 500}, {6000, 1000, 500}, {8000, 1000, 500},
				{10_000, 1000, 500}, {12_000, 1000, 500}, {14_000, 500, 500}}},
		// In 10 s intervals the last covers 5 s: 2,500 operations.
		"10 s intervals": {sum: withTimeline(100_000, 115_000, 10_000, 5000, 2500),
			want: []pt{{0, 5000, 500}, {10_000, 2500, 500}}},
		// The writer's sampler takes its closing point when the window closes, on a grid
		// from its window's start, a little before its first send: here that point begins
		// exactly at its last completion. Its 7 operations completed in the last second; they
		// used to make a point of their own, 7 over a whole second: a fall to 7 ops/s.
		"a closing point after the last completion": {
			sum:  withTimeline(100_000, 103_000, 1000, 1000, 1000, 868, 7),
			want: []pt{{0, 1000, 1000}, {1000, 1000, 1000}, {2000, 875, 875}}},
		// The drain of a real run: 7 operations in the 6 ms after the last full second. The
		// interval covers 6 ms and status says so, as a rate; the views join it to the second
		// before (internal/report).
		"a drain of 6 ms": {
			sum:  withTimeline(100_000, 103_006, 1000, 1000, 1000, 868, 7),
			want: []pt{{0, 1000, 1000}, {1000, 1000, 1000}, {2000, 868, 868}, {3000, 7, 1167}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := Merge([]*summary.Summary{tc.sum})
			var got []pt
			for _, p := range r.Timeline.Points {
				got = append(got, pt{p.OffsetMillis, p.Operations, p.OpsPerSecond})
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(pt{})); diff != "" {
				t.Errorf("timeline (-want +got):\n%s", diff)
			}
		})
	}
}
