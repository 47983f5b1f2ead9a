package nodewatch

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/nodeproc"
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
			GC: []nodeproc.GCPauses{{Count: 2, TotalMicros: 12_400}}},
		// b did not answer: its compactions of this interval count in the next point.
		{At: from.Add(2100 * time.Millisecond), Snaps: map[string]*Snapshot{"a": snap("a", 12, 8, "CompactionExecutor", 500)}},
		{At: from.Add(3 * time.Second), Snaps: map[string]*Snapshot{"a": snap("a", 13, 8, "ReadStage", 0), "b": snap("b", 105, 51, "Native-Transport-Requests", 3)},
			GC: []nodeproc.GCPauses{{Count: 1, TotalMicros: 600}, {Count: 1, TotalMicros: 300}}},
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
