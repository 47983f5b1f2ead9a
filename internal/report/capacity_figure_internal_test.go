package report

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A capacity search is drawn on the latency-throughput plane: its steps in order of the rate
// they achieved (not the order they ran), the objective as a level, and the knee ringed at
// the highest rate met.
func TestCapacityStepsAreDrawnOnTheLatencyThroughputPlane(t *testing.T) {
	run := &cbv1.BenchmarkRun{}
	run.Name = "knee"
	run.Spec.Capacity = &cbv1.CapacitySpec{Objective: cbv1.CapacityObjective{P99: metav1.Duration{Duration: 10 * time.Millisecond}}}
	run.Status.Results = &cbv1.Results{WritersReported: 1, Capacity: &cbv1.CapacityResults{OpsPerSecond: 8000, MissedOpsPerSecond: 12000,
		Stop: cbv1.CapacityConverged, Steps: []cbv1.CapacityStep{
			{TargetOpsPerSecond: 4000, OpsPerSecond: 3990, P99Micros: 2000, Outcome: cbv1.CapacityMet},
			{TargetOpsPerSecond: 16000, OpsPerSecond: 13100, P99Micros: 180_000, Outcome: cbv1.CapacityMissed},
			{TargetOpsPerSecond: 8000, OpsPerSecond: 7985, P99Micros: 6500, Outcome: cbv1.CapacityMet},
			{TargetOpsPerSecond: 12000, OpsPerSecond: 11200, P99Micros: 45_000, Outcome: cbv1.CapacityMissed},
		}}}
	f, ok := capacityFigure([]*cbv1.BenchmarkRun{run})
	if !ok {
		t.Fatal("no capacity figure for a run that searched")
	}
	p := f.panels[0]
	steps := p.lines[0].points
	want := [][2]float64{{3990, 2}, {7985, 6.5}, {11200, 45}, {13100, 180}}
	if len(steps) != len(want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Errorf("step %d at %v, want %v (in order of the rate achieved)", i, steps[i], want[i])
		}
	}
	if obj := p.lines[1]; !obj.dash || obj.points[0][1] != 10 || obj.points[1][1] != 10 || obj.points[1][0] != f.x.hi {
		t.Errorf("objective line %+v, want a dashed level at 10 ms across the axis (to %g)", obj, f.x.hi)
	}
	if len(p.markers) != 1 || p.markers[0].x != 7985 || !strings.Contains(p.markers[0].label, "knee: capacity 8,000 ops/s") {
		t.Errorf("markers %+v, want the knee ringed at the step that met 8,000 ops/s", p.markers)
	}
	var page strings.Builder
	if err := HTML(&page, "capacity", []*cbv1.BenchmarkRun{run}, nil, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `data-chart="capacity"`) || !strings.Contains(page.String(), `data-capacity="8000"`) {
		t.Error("the page lacks the capacity chart with its knee")
	}
	if _, ok := capacityFigure([]*cbv1.BenchmarkRun{{}}); ok {
		t.Error("a run without a search got a capacity figure")
	}
}
