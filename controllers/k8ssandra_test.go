package controllers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// k8ssandraDatacenter creates an opted-in, settled datacenter labelled as k8ssandra-operator
// labels those its K8ssandraCluster "demo" creates. No k8ssandra-operator runs here: the
// refusal is cassbench's own, decided from the labels before anything is written.
func k8ssandraDatacenter(t *testing.T, ns string) *cassdcapi.CassandraDatacenter {
	t.Helper()
	dc := builders.MakeDatacenter("dc1", ns).Cluster("c1").Size(3).Config(originalConfig).AllowBenchmarks("true").
		K8ssandraCluster(ns, "demo").Obj()
	pl.Create(t, dc)
	pl.Settle(t, dc)
	t.Cleanup(func() {
		// The finalizer is k8ssandra-operator's, which does not run here to remove it.
		d := &cassdcapi.CassandraDatacenter{}
		if env.Client.Get(context.Background(), client.ObjectKeyFromObject(dc), d) == nil {
			d.Finalizers = nil
			_ = env.Client.Update(context.Background(), d)
		}
	})
	return dc
}

// untouched fails the test if the datacenter's spec changed since before (its generation) or
// a lock is left on it.
func untouched(t *testing.T, dc *cassdcapi.CassandraDatacenter, before int64) {
	t.Helper()
	after := pl.Datacenter(t, dc)
	if after.Generation != before || after.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("datacenter touched: generation %d -> %d, lock %q", before, after.Generation, after.Annotations[cbv1.LockAnnotation])
	}
	if after.Spec.Size != 3 || !datacenter.SameJSON(after.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("datacenter changed: size %d config %s", after.Spec.Size, after.Spec.Config)
	}
}

// A run that would resize or retune a K8ssandraCluster's datacenter fails before touching it,
// naming the K8ssandraCluster and what to do; one asking for what the datacenter has runs.
func TestK8ssandraManagedDatacenterIsNotChangedByARun(t *testing.T) {
	ns := env.Namespace(t)
	dc := k8ssandraDatacenter(t, ns)
	gen := pl.Datacenter(t, dc).Generation
	startManager(t, managerConfig(t, ns))

	resize := builders.MakeBenchmarkRun("resize", ns).Datacenter("dc1").Size(5).Writers(1).Duration(time.Second).Obj()
	tune := builders.MakeBenchmarkRun("tune", ns).Datacenter("dc1").CassandraYaml(map[string]any{"concurrent_writes": 64}).
		Writers(1).Duration(time.Second).Obj()
	pl.Create(t, resize, tune)
	for run, says := range map[*cbv1.BenchmarkRun]string{resize: "would change its size from 3 to 5", tune: "would change its config (cassandra-yaml)"} {
		got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonDatacenterManagedByK8ssandra)
		msg := findCond(got, cbv1.ConditionSucceeded).Message
		for _, s := range []string{"is managed by K8ssandraCluster " + ns + "/demo", says,
			"change the datacenter's entry in K8ssandraCluster " + ns + "/demo", "the datacenter was not changed"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: message %q does not say %q", run.Name, msg, s)
			}
		}
		if got.Status.Datacenter != nil || got.Status.StartTime != nil {
			t.Errorf("%s recorded the datacenter as taken: %+v", run.Name, got.Status.Datacenter)
		}
	}
	untouched(t, dc, gen)

	// The size and value it has: nothing to change, so the run takes it as any datacenter.
	same := builders.MakeBenchmarkRun("same", ns).Datacenter("dc1").Size(3).CassandraYaml(map[string]any{"concurrent_writes": 32}).
		Writers(1).Duration(time.Second).Obj()
	pl.Create(t, same)
	// Already at the target: no preflight, no patch, no wait for cass-operator.
	setup := pl.WaitJob(t, ns, "same-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 3, SettingsVerified: []string{"concurrent_writes"}})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	writers := pl.WaitJob(t, ns, "same-writer")
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 1, 1000, "")}})
	pl.FinishJob(t, writers, []int32{0}, nil)
	done := pl.WaitCondition(t, same, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if r := done.Status.Results; r == nil || r.Operations != 1000 {
		t.Errorf("results %+v", r)
	}
	untouched(t, dc, gen)
}

// A sweep with restore atEnd whose points would resize a K8ssandraCluster's datacenter is
// refused as a whole before it locks it, and creates no run.
func TestK8ssandraManagedDatacenterIsNotChangedByASweep(t *testing.T) {
	ns := env.Namespace(t)
	dc := k8ssandraDatacenter(t, ns)
	gen := pl.Datacenter(t, dc).Generation
	startManager(t, managerConfig(t, ns))

	sw := builders.MakeSweep("sizes", ns).Axis("datacenter.size", 3, 5).Obj()
	sw.Spec.Restore = cbv1.RestoreAtEnd
	pl.Create(t, sw)
	got := waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonDatacenterManagedByK8ssandra)
	msg := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded).Message
	for _, s := range []string{"K8ssandraCluster " + ns + "/demo", "the sweep's point 1 (datacenter.size=5) would change its size from 3 to 5",
		"no axis on datacenter.size", "the sweep did not lock the datacenter and created no run"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not say %q", msg, s)
		}
	}
	if runs := sweepRuns(t, sw); len(runs) != 0 {
		t.Errorf("the sweep created %d runs", len(runs))
	}
	untouched(t, dc, gen)
}

// A sweep with restore afterEach does not hold the datacenter: its point's run refuses itself
// before touching it, and stopOnFailure ends the sweep there.
func TestK8ssandraManagedDatacenterRefusesAnAfterEachSweepsRun(t *testing.T) {
	ns := env.Namespace(t)
	dc := k8ssandraDatacenter(t, ns)
	gen := pl.Datacenter(t, dc).Generation
	startManager(t, managerConfig(t, ns))

	sw := builders.MakeSweep("each", ns).Axis("datacenter.size", 5, 7).Obj()
	sw.Spec.StopOnFailure = true
	pl.Create(t, sw)
	waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonStoppedOnFailure)
	runs := sweepRuns(t, sw)
	if len(runs) != 1 {
		t.Fatalf("the sweep created %d runs, want the first point's only", len(runs))
	}
	c := meta.FindStatusCondition(runs[0].Status.Conditions, cbv1.ConditionSucceeded)
	if c == nil || c.Reason != cbv1.ReasonDatacenterManagedByK8ssandra || !strings.Contains(c.Message, "K8ssandraCluster "+ns+"/demo") {
		t.Errorf("the point's run ended with %+v", c)
	}
	untouched(t, dc, gen)
}
