package sweep

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// runState is shorthand for a child run: "" exists and runs, "ok" succeeded, "fail" failed.
type runState struct {
	state string
	ops   int64
	p99   int64
}

func observed(t *testing.T, spec cbv1.BenchmarkSweepSpec, runs map[string]runState) Observed {
	t.Helper()
	sw := &cbv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Name: "sw", Namespace: "ns"}, Spec: spec}
	points, err := Expand(&sw.Spec)
	if err != nil {
		t.Fatal(err)
	}
	o := Observed{Sweep: sw, Points: points, Runs: map[string]*cbv1.BenchmarkRun{}}
	for name, s := range runs {
		run := &cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
		switch s.state {
		case "ok":
			run.Status.Conditions = []metav1.Condition{{Type: cbv1.ConditionSucceeded, Status: metav1.ConditionTrue, Reason: "Succeeded"}}
			run.Status.Results = &cbv1.Results{
				Operations: s.ops * 10, OpsPerSecond: s.ops,
				Writes: &cbv1.OperationResults{Operations: s.ops * 10, Response: cbv1.Latency{P50: s.p99 / 4, P99: s.p99, P999: s.p99 * 2}},
				Errors: cbv1.ErrorCounts{WriteTimeout: 1, Overloaded: 1},
			}
		case "fail":
			run.Status.Conditions = []metav1.Condition{{Type: cbv1.ConditionSucceeded, Status: metav1.ConditionFalse,
				Reason: cbv1.ReasonWriterFailed, Message: "writer 1 exited with code 137"}}
		}
		o.Runs[name] = run
	}
	return o
}

func TestDecide(t *testing.T) {
	twoByTwo := cbv1.BenchmarkSweepSpec{Repeats: 1, Axes: []cbv1.SweepAxis{builders.Axis("a", "1", "2"), builders.Axis("b", "1", "2")}}
	repeated := cbv1.BenchmarkSweepSpec{Repeats: 3, Axes: []cbv1.SweepAxis{builders.Axis("a", "1", "2")}}
	stopping := twoByTwo
	stopping.StopOnFailure = true
	cases := map[string]struct {
		spec cbv1.BenchmarkSweepSpec
		runs map[string]runState
		want Decision
	}{
		"first run":          {spec: twoByTwo, want: Decision{Create: &Slot{Point: 0, Repeat: 0, Name: "sw-0-0"}}},
		"waits for a run":    {spec: twoByTwo, runs: map[string]runState{"sw-0-0": {}}, want: Decision{}},
		"next after success": {spec: twoByTwo, runs: map[string]runState{"sw-0-0": {state: "ok"}}, want: Decision{Create: &Slot{Point: 1, Name: "sw-1-0"}}},
		"goes on after a failure": {spec: twoByTwo, runs: map[string]runState{"sw-0-0": {state: "ok"}, "sw-1-0": {state: "fail"}},
			want: Decision{Create: &Slot{Point: 2, Name: "sw-2-0"}}},
		"stops on a failure": {spec: stopping, runs: map[string]runState{"sw-0-0": {state: "ok"}, "sw-1-0": {state: "fail"}},
			want: Decision{Done: true, Stopped: &Slot{Point: 1, Name: "sw-1-0"}}},
		"done": {spec: twoByTwo, runs: map[string]runState{"sw-0-0": {state: "ok"}, "sw-1-0": {state: "fail"}, "sw-2-0": {state: "ok"}, "sw-3-0": {state: "ok"}},
			want: Decision{Done: true}},
		"repeats of a point run before the next point": {spec: repeated, runs: map[string]runState{"sw-0-0": {state: "ok"}},
			want: Decision{Create: &Slot{Point: 0, Repeat: 1, Name: "sw-0-1"}}},
		"last repeat then next point": {spec: repeated, runs: map[string]runState{"sw-0-0": {state: "ok"}, "sw-0-1": {state: "ok"}, "sw-0-2": {state: "fail"}},
			want: Decision{Create: &Slot{Point: 1, Repeat: 0, Name: "sw-1-0"}}},
		"a deleted run waits for the running one": {spec: twoByTwo, runs: map[string]runState{"sw-1-0": {state: "ok"}, "sw-2-0": {}},
			want: Decision{}},
		"a deleted run is created again in its turn": {spec: twoByTwo, runs: map[string]runState{"sw-1-0": {state: "ok"}, "sw-2-0": {state: "ok"}},
			want: Decision{Create: &Slot{Point: 0, Name: "sw-0-0"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Decide(observed(t, tc.spec, tc.runs))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTable(t *testing.T) {
	spec := cbv1.BenchmarkSweepSpec{Repeats: 2, Axes: []cbv1.SweepAxis{builders.Axis("writers.replicas", "12", "24", "48", "64")}}
	o := observed(t, spec, map[string]runState{
		"sw-0-0": {state: "ok", ops: 1000, p99: 4000}, "sw-0-1": {state: "ok", ops: 1201, p99: 3000},
		"sw-1-0": {state: "ok", ops: 2000, p99: 5000}, "sw-1-1": {state: "fail"},
		"sw-2-0": {state: "ok", ops: 3000, p99: 9000},
	})
	got := Table(o, false)
	want := []cbv1.SweepPoint{
		{Point: 0, Values: []string{"12"}, Runs: []string{"sw-0-0", "sw-0-1"}, Outcome: cbv1.PointSucceeded, Succeeded: 2,
			OpsPerSecond: 1101, OpsPerSecondMin: 1000, OpsPerSecondMax: 1201, OpsPerSecondSpread: "0.182561",
			// These runs kept no sketches: the highest of their percentiles, an upper bound.
			P50: 1000, P99: 4000, P999: 8000, P99Min: 3000, P99Max: 4000,
			TimeoutRatio: "0.000091", Errors: 4},
		{Point: 1, Values: []string{"24"}, Runs: []string{"sw-1-0", "sw-1-1"}, Outcome: cbv1.PointFailed, Succeeded: 1, Failed: 1,
			Message:      "BenchmarkRun sw-1-1 failed: writer 1 exited with code 137",
			OpsPerSecond: 2000, OpsPerSecondMin: 2000, OpsPerSecondMax: 2000, P50: 1250, P99: 5000, P999: 10000, P99Min: 5000, P99Max: 5000,
			TimeoutRatio: "0.00005", Errors: 2},
		{Point: 2, Values: []string{"48"}, Runs: []string{"sw-2-0"}, Outcome: cbv1.PointRunning, Succeeded: 1,
			OpsPerSecond: 3000, OpsPerSecondMin: 3000, OpsPerSecondMax: 3000, P50: 2250, P99: 9000, P999: 18000, P99Min: 9000, P99Max: 9000,
			TimeoutRatio: "0.000033", Errors: 2},
		{Point: 3, Values: []string{"64"}, Outcome: cbv1.PointPending},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	c := Count(got)
	if diff := cmp.Diff(Counts{Points: 4, Completed: 2, Failed: 1}, c); diff != "" {
		t.Error(diff)
	}
	if p := c.Progress(); p != "2/4 done, 1 failed" {
		t.Errorf("progress %q", p)
	}

	stopped := Table(o, true)
	if stopped[3].Outcome != cbv1.PointSkipped || stopped[2].Outcome != cbv1.PointSkipped {
		t.Errorf("unfinished points of a stopped sweep are %s and %s", stopped[2].Outcome, stopped[3].Outcome)
	}
	if p := Count(stopped).Progress(); p != "2/4 done, 1 failed, 2 skipped" {
		t.Errorf("progress %q", p)
	}
}

func TestBest(t *testing.T) {
	axes := []cbv1.SweepAxis{builders.Axis("writers.replicas", "1"), builders.Axis("datacenter.size", "1")}
	rows := []cbv1.SweepPoint{
		{Point: 0, Values: []string{"12", "4"}, Outcome: cbv1.PointSucceeded, Succeeded: 1, OpsPerSecond: 1000, P99: 900, TimeoutRatio: "0.01"},
		{Point: 1, Values: []string{"24", "4"}, Outcome: cbv1.PointSucceeded, Succeeded: 1, OpsPerSecond: 3000, P99: 2000, TimeoutRatio: "0"},
		{Point: 2, Values: []string{"48", "4"}, Outcome: cbv1.PointFailed, Succeeded: 1, Failed: 1, OpsPerSecond: 9000, P99: 100},
		{Point: 3, Values: []string{"64", "4"}, Outcome: cbv1.PointSucceeded, Succeeded: 1, OpsPerSecond: 3500, P99: 5000, TimeoutRatio: "0"},
	}
	cases := map[cbv1.SweepMetric]*cbv1.SweepBest{
		"": {Point: 3, Values: []string{"64", "4"}, By: cbv1.BestByOpsPerSecond,
			Summary: "writers.replicas=64, datacenter.size=4 (3500 ops/s)"},
		cbv1.BestByOpsPerSecond: {Point: 3, Values: []string{"64", "4"}, By: cbv1.BestByOpsPerSecond,
			Summary: "writers.replicas=64, datacenter.size=4 (3500 ops/s)"},
		cbv1.BestByP99: {Point: 0, Values: []string{"12", "4"}, By: cbv1.BestByP99,
			Summary: "writers.replicas=12, datacenter.size=4 (p99 900us)"},
		cbv1.BestByTimeoutRatio: {Point: 3, Values: []string{"64", "4"}, By: cbv1.BestByTimeoutRatio,
			Summary: "writers.replicas=64, datacenter.size=4 (timeouts 0)"},
	}
	for by, want := range cases {
		t.Run(string(by), func(t *testing.T) {
			if diff := cmp.Diff(want, Best(axes, rows, by, nil)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := Best(axes, rows[2:3], cbv1.BestByOpsPerSecond, nil); got != nil {
		t.Errorf("best of failed points: %+v", got)
	}
}

// Repeats are aggregated from their merged sketches: the p99 of all their operations, which
// the mean of their p99s is not when one repeat had a slow tail.
func TestRepeatsMergeSketches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var union []float64
	var runs []*cbv1.Results
	var meanP99 float64
	for _, median := range []float64{500, 520, 4000} {
		sk := sketch.New()
		for range 20000 {
			v := median * math.Exp(0.4*r.NormFloat64())
			sk.Add(v)
			union = append(union, v)
		}
		meanP99 += sk.Quantile(0.99) / 3
		runs = append(runs, &cbv1.Results{Operations: 20000, OpsPerSecond: 1000,
			Writes:   &cbv1.OperationResults{Operations: 20000, Response: results.Latency(sk)},
			Sketches: &cbv1.ResultSketches{WritesResponse: results.Encode(sk)}})
	}
	var row cbv1.SweepPoint
	aggregate(&row, runs)
	sort.Float64s(union)
	for q, got := range map[float64]int64{0.5: row.P50, 0.99: row.P99, 0.999: row.P999} {
		want := union[int(q*float64(len(union)-1))]
		if math.Abs(float64(got)-want)/want > sketch.Accuracy+0.002 {
			t.Errorf("q%v of the repeats: %d, of all their operations %.0f", q, got, want)
		}
	}
	if math.Abs(meanP99-float64(row.P99))/float64(row.P99) < 0.1 {
		t.Fatalf("test data does not tell merging from averaging (mean of p99s %.0f)", meanP99)
	}
	if row.RelativeAccuracy != "0.01" {
		t.Errorf("accuracy %q", row.RelativeAccuracy)
	}
}
