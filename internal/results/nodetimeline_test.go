package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// Writers' timelines land on the client timeline's origin by their clocks' offsets, in
// intervals of the coarsest writer's: queues take the highest, counts add, a sample ending
// before the origin counts in the first interval, and intervals no sample ended in are left
// out.
func TestMergeServerTimeline(t *testing.T) {
	const origin = 1_000_000 // Cassandra's clock
	sums := []*summary.Summary{
		// Writer 0's clock is 200 ms ahead; its sampler began 100 ms before the origin.
		{Index: 0, OffsetMillis: 200, Server: &summary.Server{Timeline: &summary.ServerTimeline{FromMillis: origin + 100, IntervalMillis: 1000,
			Points: []summary.ServerPoint{{AtMillis: 50, Pending: 9, Flushes: 1}, {AtMillis: 1100, Pending: 3, Compactions: 2, HintsStored: 700}, {AtMillis: 3100, Compactions: 1, GCPauses: 1, GCMillis: 40, HintsDelivered: 650}}}}},
		// Writer 1 samples every 500 ms on Cassandra's clock.
		{Index: 1, Server: &summary.Server{Timeline: &summary.ServerTimeline{FromMillis: origin, IntervalMillis: 500,
			Points: []summary.ServerPoint{{AtMillis: 500, Pending: 4, Flushes: 2}, {AtMillis: 1000, Pending: 12}, {AtMillis: 1500, Compactions: 5, HintsStored: 30}}}}},
		{Index: 2, Server: &summary.Server{}},
		nil,
	}
	got := MergeServerTimeline(sums, origin, true)
	want := &cbv1.ServerTimeline{IntervalMillis: 1000, Points: []cbv1.ServerTimelinePoint{
		// A sample ending at 1,000 ms ends the first interval.
		{OffsetMillis: 0, PendingPeak: 12, Flushes: 3, Compactions: 2, HintsStored: 700},
		{OffsetMillis: 1000, Compactions: 5, HintsStored: 30},
		{OffsetMillis: 2000, Compactions: 1, GCPauses: 1, GCMillis: 40, HintsDelivered: 650},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Without a client timeline the earliest sampler's start is the origin.
	if got := MergeServerTimeline(sums, 0, false); got.Points[0].PendingPeak != 9 || got.Points[1].PendingPeak != 12 {
		t.Errorf("own origin: %+v", got.Points)
	}
	if MergeServerTimeline(sums[2:], origin, true) != nil {
		t.Error("a timeline from writers that sent none")
	}
	// A long window doubles the interval rather than go past MaxItems.
	long := &summary.ServerTimeline{FromMillis: origin, IntervalMillis: 1000}
	for i := range 200 {
		long.Points = append(long.Points, summary.ServerPoint{AtMillis: int64(i+1) * 1000, Flushes: 1})
	}
	got = MergeServerTimeline([]*summary.Summary{{Server: &summary.Server{Timeline: long}}}, origin, true)
	var flushes int64
	for _, p := range got.Points {
		flushes += p.Flushes
	}
	if len(got.Points) > maxMergedServerPoints || flushes != 200 || got.IntervalMillis != 8000 {
		t.Errorf("%d points at %d ms, %d flushes", len(got.Points), got.IntervalMillis, flushes)
	}
}
