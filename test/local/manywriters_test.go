package local

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/summary"
)

// A run of 100 writer pods (processes here) against the local nodes completes, and every
// writer's raw report is readable afterwards from the ConfigMaps the run owns, while status
// keeps a compact row per writer. The rate is low (one operation per second per writer) so
// that two shared cores start and run them all.
func TestHundredWritersKeepEveryReport(t *testing.T) {
	const name, writers = "hundred-writers", 100
	env, ctx := scenario(t, name)
	run := newRun(env, name).Writers(writers).Concurrency(1).Rate(writers).Duration(20 * time.Second).Obj()
	create(ctx, t, env, run)

	run = waitFinished(ctx, t, env, name, 10*time.Minute)
	if run.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("phase %s, want Succeeded; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	if res := run.Status.Results; res == nil || res.WritersReported != writers || res.Operations == 0 {
		t.Fatalf("results %+v, want all %d writers reported with operations", res, writers)
	}
	if len(run.Status.WriterReports) != writers {
		t.Fatalf("status keeps %d writer rows, want %d", len(run.Status.WriterReports), writers)
	}
	for _, row := range run.Status.WriterReports {
		if row.Summary != "" || row.ConfigMap != reportstore.Name(name, row.Index) || row.PodUID == "" {
			t.Errorf("status row of writer %d: %+v; want no summary, its pod and ConfigMap %s", row.Index, row, reportstore.Name(name, row.Index))
		}
	}
	var cms corev1.ConfigMapList
	if err := env.Client.List(ctx, &cms, client.InNamespace(env.Namespace), client.MatchingLabels(reportstore.Selector(name))); err != nil {
		t.Fatal(err)
	}
	stored, err := reportstore.Read(run, cms.Items)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != writers {
		t.Fatalf("%d reports stored in %d ConfigMaps, want %d", len(stored), len(cms.Items), writers)
	}
	var ops int64
	for i, r := range stored {
		s, err := summary.Decode([]byte(r.Summary))
		if err != nil || r.Index != int32(i) || s.Error != "" {
			t.Fatalf("report %d: index %d, error %v, summary error %q", i, r.Index, err, s.Error)
		}
		ops += s.Writes.OK
	}
	if ops < run.Status.Results.Operations {
		t.Errorf("the stored reports hold %d successful writes, status.results %d operations", ops, run.Status.Results.Operations)
	}
	t.Logf("%d writers: %d operations, %d reports in %d ConfigMaps", writers, run.Status.Results.Operations, len(stored), len(cms.Items))
	checkRestored(ctx, t, env)
}
