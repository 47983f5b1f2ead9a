package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// Each kind of workload.operations is merged across writers on its own, from the union of
// their sketches, and counts in the run's totals beside writes and reads.
func TestMergeKinds(t *testing.T) {
	one := func(i int32, lwtApplied, scanned int64, latency float64) *summary.Summary {
		return &summary.Summary{Version: summary.Version, Index: i, Writers: 2, Start: 1000, End: 11000,
			Writes: &summary.Ops{OK: 1000, Response: sketchOf([]float64{100}), Service: sketchOf([]float64{100})},
			Kinds: []*summary.KindOps{
				{Kind: "insertIfNotExists", Ops: summary.Ops{OK: 500, WriteTimeout: 2, Response: sketchOf([]float64{latency, latency})}, Applied: lwtApplied, NotApplied: 500 - lwtApplied},
				{Kind: "scanPartition", Ops: summary.Ops{OK: 100, Rows: scanned, Misses: 1, Bytes: 10 * scanned, Response: sketchOf([]float64{5000})}, Pages: 300},
			}}
	}
	got := Merge([]*summary.Summary{one(0, 400, 9000, 2000), one(1, 100, 11000, 4000)})
	want := []cbv1.KindResults{
		{Kind: "insertIfNotExists", Operations: 1000, OpsPerSecond: 100, Failed: 4, Applied: 500, NotApplied: 500},
		{Kind: "scanPartition", Operations: 200, OpsPerSecond: 20, Rows: 20000, Pages: 600, Misses: 2},
	}
	if len(got.OperationsByKind) != 2 {
		t.Fatalf("operationsByKind = %+v", got.OperationsByKind)
	}
	lwt := got.OperationsByKind[0].Response
	if lwt.P50 < 1980 || lwt.P50 > 2020 || lwt.Max < 3960 || lwt.Max > 4040 {
		t.Errorf("insertIfNotExists response %+v: want p50 2000 and max 4000 from both writers' sketches", lwt)
	}
	for i := range got.OperationsByKind {
		got.OperationsByKind[i].Response = cbv1.Latency{}
	}
	if diff := cmp.Diff(want, got.OperationsByKind); diff != "" {
		t.Errorf("operationsByKind (-want +got):\n%s", diff)
	}
	if got.Operations != 2000+1000+200 || got.Errors.WriteTimeout != 4 || got.OpsPerSecond != 320 {
		t.Errorf("totals: operations %d, write timeouts %d, ops/s %d; want 3200, 4, 320", got.Operations, got.Errors.WriteTimeout, got.OpsPerSecond)
	}
	if got.Bytes != 200000 || got.PerWriter[0].Operations != 1600 {
		t.Errorf("bytes %d, writer 0 operations %d; want 200000 and 1600", got.Bytes, got.PerWriter[0].Operations)
	}
	if got.Writes.Operations != 2000 || got.Reads != nil {
		t.Errorf("writes %+v, reads %+v: the kinds must not change them", got.Writes, got.Reads)
	}
}

// A run of workload.operations alone keeps each kind's sketch, and its headline sketch is its
// first kind's: sweeps and comparisons of scan experiments have a latency to show.
func TestKindSketches(t *testing.T) {
	sum := &summary.Summary{Version: summary.Version, Writers: 1, Start: 1000, End: 2000, Kinds: []*summary.KindOps{
		{Kind: "scanPartition", Ops: summary.Ops{OK: 3, Response: sketchOf([]float64{1000, 2000, 3000})}},
		{Kind: "delete", Ops: summary.Ops{OK: 1, Response: sketchOf([]float64{50})}},
	}}
	r := Merge([]*summary.Summary{sum})
	if r.Sketches == nil || len(r.Sketches.Kinds) != 2 || r.Sketches.Kinds[1].Kind != cbv1.OperationDelete {
		t.Fatalf("sketches %+v", r.Sketches)
	}
	s, err := ResponseSketch(r)
	if err != nil || s == nil {
		t.Fatalf("headline sketch %v, %v", s, err)
	}
	if s.Count() != 3 || s.Max() != 3000 {
		t.Errorf("headline sketch of %v values up to %v; want the scans' 3 up to 3000", s.Count(), s.Max())
	}
}
