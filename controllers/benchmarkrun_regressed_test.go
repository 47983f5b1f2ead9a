package controllers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// createBaselines creates n runs of experiment that succeeded in the days before the played
// window, each figure like centre's within 1%: what earlier nightly runs left.
func createBaselines(t *testing.T, ns, experiment string, n int, centre *cbv1.Results) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(len(experiment)), 1))
	jitter := func(v int64) int64 { return int64(float64(v) * (1 + 0.01*rng.NormFloat64())) }
	played := time.UnixMilli(play.WindowStart).UTC()
	for i := range n {
		run := reporttest.Run(ns)
		run.Name = fmt.Sprintf("%s-base-%d", experiment, i)
		run.Spec.DatacenterRef.Name = "elsewhere"
		run.Labels = map[string]string{cbv1.ExperimentLabel: experiment}
		status := run.Status
		r := status.Results
		r.WindowStart = metav1.NewTime(played.Add(-time.Duration(n-i) * 24 * time.Hour))
		r.OpsPerSecond = jitter(centre.OpsPerSecond)
		r.TimeoutsPerOperation = centre.TimeoutsPerOperation
		resp := centre.Writes.Response
		r.Writes.Operations = centre.Writes.Operations
		r.Writes.Response.P50, r.Writes.Response.P99, r.Writes.Response.P999 = jitter(resp.P50), jitter(resp.P99), jitter(resp.P999)
		pl.Create(t, run)
		run.Status = status
		if err := env.Client.Status().Update(context.Background(), run); err != nil {
			t.Fatal(err)
		}
	}
}

// A run that names its baselines gets Regressed once it succeeds: True, naming the figure,
// against baselines that measured twice its throughput; False against baselines like it. The
// Argo CD health check shipped in docs/argocd reads the first as Degraded.
func TestRegressedAgainstBaselines(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	// What a played run measures (completeRun): one writer's 1,000 operations in 10 s.
	sum, err := summary.Decode([]byte(play.WriterSummary(t, 0, 1, 1000, "")))
	if err != nil {
		t.Fatal(err)
	}
	played := results.Merge([]*summary.Summary{sum})
	twice := *played
	twice.OpsPerSecond *= 2
	// The baselines are over before the manager starts: it never begins them.
	createBaselines(t, ns, "fast", 6, &twice)
	createBaselines(t, ns, "same", 6, played)
	startManager(t, managerConfig(t, ns))

	judged := func(name, experiment string) *cbv1.BenchmarkRun {
		run := builders.MakeBenchmarkRun(name, ns).Datacenter("dc1").Writers(1).Duration(time.Second).
			Label(cbv1.ExperimentLabel, experiment).Apply(func(r *cbv1.BenchmarkRun) {
			r.Spec.Baselines = &cbv1.Baselines{Selector: metav1.LabelSelector{MatchLabels: map[string]string{cbv1.ExperimentLabel: experiment}}}
		}).Obj()
		pl.Create(t, run)
		completeRun(t, ns, name, 1)
		return run
	}
	slow := judged("fast-1", "fast")
	got := pl.WaitCondition(t, slow, cbv1.ConditionRegressed, metav1.ConditionTrue, cbv1.ReasonRegressed)
	c := findCondition(got, cbv1.ConditionRegressed)
	if !strings.Contains(c.Message, "regressed against 6 baselines: ops/s -49.8% (199 -> 100) from fast-1: newest run") {
		t.Errorf("Regressed says %q", c.Message)
	}
	if status, hm := argoHealth(t, got); status != "Degraded" || !strings.Contains(hm, "ops/s -49.8%") {
		t.Errorf("Argo CD health %s %q, want Degraded naming the figure", status, hm)
	}

	ok := judged("same-1", "same")
	got = pl.WaitCondition(t, ok, cbv1.ConditionRegressed, metav1.ConditionFalse, cbv1.ReasonNoRegression)
	if status, _ := argoHealth(t, got); status != "Healthy" {
		t.Errorf("Argo CD health %s for a run that did not regress", status)
	}
	t.Logf("%s; ops/s %d, write p99 %d µs, timeouts/op %s", findCondition(got, cbv1.ConditionRegressed).Message,
		got.Status.Results.OpsPerSecond, got.Status.Results.Writes.Response.P99, strconv.Quote(got.Status.Results.TimeoutsPerOperation))
}

func findCondition(run *cbv1.BenchmarkRun, t string) metav1.Condition {
	for _, c := range run.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return metav1.Condition{}
}
