package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// The load stage adds up apart from the window: its rows and failures are not operations of
// the window, and its rate is over the slowest writer's time.
func TestMergeKeepsTheLoadStageApart(t *testing.T) {
	sums := []*summary.Summary{
		{Version: summary.Version, Index: 0, Writers: 2, Start: 1000, End: 3000, SpanMicros: 2_000_000,
			Writes: &summary.Ops{OK: 10}, Load: &summary.Load{Rows: 50_000, Wanted: 50_000, Bytes: 400_000, Millis: 18_000}},
		{Version: summary.Version, Index: 1, Writers: 2, Start: 1000, End: 3000, SpanMicros: 2_000_000,
			Writes: &summary.Ops{OK: 10}, Load: &summary.Load{Rows: 49_990, Wanted: 50_000, Failed: 10, Bytes: 399_920, Millis: 20_000}},
	}
	res := Merge(sums)
	want := &cbv1.LoadResults{Rows: 99_990, RowsWanted: 100_000, Failed: 10, Bytes: 799_920, Millis: 20_000, RowsPerSecond: 5_000}
	if diff := cmp.Diff(want, res.Load); diff != "" {
		t.Errorf("load (-want +got):\n%s", diff)
	}
	if res.Operations != 20 {
		t.Errorf("window operations %d, want the 20 writes alone", res.Operations)
	}
	if Merge(sums[:0]) != nil || Merge([]*summary.Summary{{Version: summary.Version, Start: 1000, End: 2000}}).Load != nil {
		t.Error("a load stage appeared where no writer loaded")
	}
}
