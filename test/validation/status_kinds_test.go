package validation_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// The status schema takes what results.Merge makes of every kind of workload.operations, its
// figures and its sketches, and gives them back unchanged.
func TestOperationsByKindStatusRoundTrips(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	run := builders.MakeBenchmarkRun("kinds", ns).Obj()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	response := sketch.New()
	for i := range 1000 {
		response.Add(float64(100 + i))
	}
	sum := &summary.Summary{Version: summary.Version, Writers: 1, Start: 1000, End: 61000}
	for _, k := range []string{"update", "delete", "insertIfNotExists", "counterIncrement", "scanPartition", "scanTokenRange"} {
		sum.Kinds = append(sum.Kinds, &summary.KindOps{Kind: k, Ops: summary.Ops{OK: 1000, Other: 2, Rows: 50, Misses: 1, Response: response.Clone()},
			Pages: 9, Applied: 700, NotApplied: 300})
	}
	run.Status.Results = results.Merge([]*summary.Summary{sum})
	want := run.Status.Results.OperationsByKind
	if len(want) != 6 {
		t.Fatalf("merge made %d kinds", len(want))
	}
	if err := env.Client.Status().Update(ctx, run); err != nil {
		t.Fatalf("status refused: %v", err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), run); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, run.Status.Results.OperationsByKind); diff != "" {
		t.Errorf("operationsByKind came back changed (-sent +stored):\n%s", diff)
	}
	if s := run.Status.Results.Sketches; s == nil || len(s.Kinds) != 6 || s.Kinds[0].Response == "" {
		t.Errorf("the kinds' sketches did not come back: %+v", s)
	}
}
