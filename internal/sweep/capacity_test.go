package sweep

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// TestCapacityAndCostPerPoint: a point's capacity is the lowest its repeats found, its cost
// the mean of theirs; a sweep names the point with the most capacity, and the cheapest
// point whose p99 meets maxP99Micros.
func TestCapacityAndCostPerPoint(t *testing.T) {
	res := func(capacity int64, cost string, p99 int64) *cbv1.Results {
		r := &cbv1.Results{OpsPerSecond: 1000, Writes: &cbv1.OperationResults{Response: cbv1.Latency{P99: p99}}}
		if capacity > 0 {
			r.Capacity = &cbv1.CapacityResults{OpsPerSecond: capacity, Stop: cbv1.CapacityConverged}
		}
		if cost != "" {
			r.Cost = &cbv1.CostResults{Currency: "EUR", PerMillionOperations: cost}
		}
		return r
	}
	var rows []cbv1.SweepPoint
	for i, repeats := range [][]*cbv1.Results{
		{res(4000, "0.05", 900), res(3800, "0.07", 900)},     // 3 nodes
		{res(6500, "0.045", 3000), res(6900, "0.045", 2900)}, // 5 nodes: cheapest, but slow
		{res(5000, "0.055", 800), res(5100, "0.049", 800)},   // 4 nodes
	} {
		row := cbv1.SweepPoint{Point: int32(i), Values: []string{[]string{"3", "5", "4"}[i]}, Outcome: cbv1.PointSucceeded, Succeeded: 2}
		aggregate(&row, repeats)
		rows = append(rows, row)
	}
	type view struct {
		Capacity int64
		Cost     string
	}
	var got []view
	for _, r := range rows {
		got = append(got, view{r.Capacity, r.CostPerMillionOperations})
	}
	if diff := cmp.Diff([]view{{3800, "0.06"}, {6500, "0.045"}, {5000, "0.052"}}, got); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	axes := []cbv1.SweepAxis{builders.Axis("datacenter.size", "3")}
	if diff := cmp.Diff(&cbv1.SweepBest{Point: 1, Values: []string{"5"}, By: cbv1.BestByCapacity, Summary: "datacenter.size=5 (capacity 6500 ops/s)"},
		Best(axes, rows, cbv1.BestByCapacity, nil)); diff != "" {
		t.Errorf("most capacity (-want +got):\n%s", diff)
	}
	maxP99 := int64(1000)
	if diff := cmp.Diff(&cbv1.SweepBest{Point: 2, Values: []string{"4"}, By: cbv1.BestByCost, Summary: "datacenter.size=4 (0.052 EUR per million operations)"},
		Best(axes, rows, cbv1.BestByCost, &maxP99)); diff != "" {
		t.Errorf("cheapest within p99 (-want +got):\n%s", diff)
	}
}
