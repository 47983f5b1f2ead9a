package server

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// snap is a node's snapshot with its compactions and flushes completed so far and tasks
// pending in a stage.
func snap(node string, compactions, flushes int64, stage string, pending int64) *Snapshot {
	s := &Snapshot{Node: node, Pools: map[string]Pool{
		"CompactionExecutor":  {Completed: compactions},
		"MemtableFlushWriter": {Completed: flushes},
	}}
	p := s.Pools[stage]
	p.Pending = pending
	s.Pools[stage] = p
	return s
}

// Each point holds the highest request-stage queue of any node at its sample and what the
// nodes completed since the previous one; a node that missed a sample has its counts in the
// next it answered; a queue outside the request stages (compactions waiting) is no request
// waiting; GC pauses add over the local nodes, rounded to milliseconds.
func TestTimelineFromSamples(t *testing.T) {
	from := time.Unix(1_800_000_000, 0)
	before := map[string]*Snapshot{"a": snap("a", 10, 5, "ReadStage", 0), "b": snap("b", 100, 50, "ReadStage", 0)}
	samples := []Sample{
		{At: from.Add(1 * time.Second), Snaps: map[string]*Snapshot{"a": snap("a", 12, 6, "MutationStage", 40), "b": snap("b", 101, 50, "ReadStage", 7)},
			GC: []GCPauses{{Count: 2, TotalMicros: 12_400}}},
		// b did not answer: its compactions of this interval count in the next point.
		{At: from.Add(2100 * time.Millisecond), Snaps: map[string]*Snapshot{"a": snap("a", 12, 8, "CompactionExecutor", 500)}},
		{At: from.Add(3 * time.Second), Snaps: map[string]*Snapshot{"a": snap("a", 13, 8, "ReadStage", 0), "b": snap("b", 105, 51, "Native-Transport-Requests", 3)},
			GC: []GCPauses{{Count: 1, TotalMicros: 600}, {Count: 1, TotalMicros: 300}}},
		// a restarted: its counters start again, which counts nothing.
		{At: from.Add(4 * time.Second), Snaps: map[string]*Snapshot{"a": snap("a", 0, 0, "ReadStage", 0)}},
	}
	got := Timeline(from, time.Second, before, samples)
	want := &summary.ServerTimeline{FromMillis: from.UnixMilli(), IntervalMillis: 1000, Points: []summary.ServerPoint{
		{AtMillis: 1000, Pending: 40, Compactions: 3, Flushes: 1, GCPauses: 2, GCMillis: 12},
		{AtMillis: 2100, Flushes: 2},
		{AtMillis: 3000, Pending: 3, Compactions: 1 + 4, Flushes: 1, GCPauses: 2, GCMillis: 1 + 0},
		{AtMillis: 4000},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if Timeline(from, time.Second, before, nil) != nil {
		t.Error("a timeline with no sample")
	}
}

// Writers' timelines land on the client timeline's origin by their clocks' offsets, in
// intervals of the coarsest writer's: queues take the highest, counts add, a sample ending
// before the origin counts in the first interval, and intervals no sample ended in are left
// out.
func TestMergeTimeline(t *testing.T) {
	const origin = 1_000_000 // Cassandra's clock
	sums := []*summary.Summary{
		// Writer 0's clock is 200 ms ahead; its sampler began 100 ms before the origin.
		{Index: 0, OffsetMillis: 200, Server: &summary.Server{Timeline: &summary.ServerTimeline{FromMillis: origin + 100, IntervalMillis: 1000,
			Points: []summary.ServerPoint{{AtMillis: 50, Pending: 9, Flushes: 1}, {AtMillis: 1100, Pending: 3, Compactions: 2}, {AtMillis: 3100, Compactions: 1, GCPauses: 1, GCMillis: 40}}}}},
		// Writer 1 samples every 500 ms on Cassandra's clock.
		{Index: 1, Server: &summary.Server{Timeline: &summary.ServerTimeline{FromMillis: origin, IntervalMillis: 500,
			Points: []summary.ServerPoint{{AtMillis: 500, Pending: 4, Flushes: 2}, {AtMillis: 1000, Pending: 12}, {AtMillis: 1500, Compactions: 5}}}}},
		{Index: 2, Server: &summary.Server{}},
		nil,
	}
	got := MergeTimeline(sums, origin, true)
	want := &cbv1.ServerTimeline{IntervalMillis: 1000, Points: []cbv1.ServerTimelinePoint{
		// A sample ending at 1,000 ms ends the first interval.
		{OffsetMillis: 0, PendingPeak: 12, Flushes: 3, Compactions: 2},
		{OffsetMillis: 1000, Compactions: 5},
		{OffsetMillis: 2000, Compactions: 1, GCPauses: 1, GCMillis: 40},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Without a client timeline the earliest sampler's start is the origin.
	if got := MergeTimeline(sums, 0, false); got.Points[0].PendingPeak != 9 || got.Points[1].PendingPeak != 12 {
		t.Errorf("own origin: %+v", got.Points)
	}
	if MergeTimeline(sums[2:], origin, true) != nil {
		t.Error("a timeline from writers that sent none")
	}
	// A long window doubles the interval rather than go past MaxItems.
	long := &summary.ServerTimeline{FromMillis: origin, IntervalMillis: 1000}
	for i := range 200 {
		long.Points = append(long.Points, summary.ServerPoint{AtMillis: int64(i+1) * 1000, Flushes: 1})
	}
	got = MergeTimeline([]*summary.Summary{{Server: &summary.Server{Timeline: long}}}, origin, true)
	var flushes int64
	for _, p := range got.Points {
		flushes += p.Flushes
	}
	if len(got.Points) > maxMergedServerPoints || flushes != 200 || got.IntervalMillis != 8000 {
		t.Errorf("%d points at %d ms, %d flushes", len(got.Points), got.IntervalMillis, flushes)
	}
}

// Compactions come from the node's compaction history where both snapshots read it: the
// executor's completed tasks also count every background check that found nothing to do.
func TestCompactedSince(t *testing.T) {
	pools := func(completed int64) map[string]Pool {
		return map[string]Pool{"CompactionExecutor": {Completed: completed}}
	}
	tests := map[string]struct {
		prev, cur Snapshot
		want      int64
	}{
		"history read at both ends":  {Snapshot{Pools: pools(10), Compacted: 4, CompactedRead: true}, Snapshot{Pools: pools(114), Compacted: 6, CompactedRead: true}, 2},
		"no compaction, many checks": {Snapshot{Pools: pools(10), CompactedRead: true}, Snapshot{Pools: pools(114), CompactedRead: true}, 0},
		"history unread at one end":  {Snapshot{Pools: pools(10), Compacted: 4, CompactedRead: true}, Snapshot{Pools: pools(14)}, 4},
		"node restarted":             {Snapshot{Pools: pools(10), Compacted: 9, CompactedRead: true}, Snapshot{Pools: pools(1), Compacted: 2, CompactedRead: true}, 0},
	}
	for name, tc := range tests {
		if got := compactedSince(&tc.prev, &tc.cur); got != tc.want {
			t.Errorf("%s: compactedSince = %d, want %d", name, got, tc.want)
		}
	}
}
