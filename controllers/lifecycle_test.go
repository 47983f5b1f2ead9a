package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// Someone else's change to the datacenter mid-run (a GitOps sync putting its size back) is
// drift, not a deadline: the run fails naming it, its writers are stopped before the lock is
// released, and the next queued run starts only after that.
func TestDriftMidRunStopsTheWritersBeforeTheNextRunStarts(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("drifted", ns).Datacenter("dc1").Size(4).Writers(2).Duration(time.Hour).Obj()
	pl.Create(t, run)
	pl.OperatorApplies(t, dc, gen)
	setup := pl.WaitJob(t, ns, "drifted-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 4})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	writers := pl.WaitJob(t, ns, "drifted-writer")
	pl.JobRunning(t, writers, 2)
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Running: true}, 1: {Running: true}})
	time.Sleep(1100 * time.Millisecond) // creation timestamps have one-second resolution
	next := builders.MakeBenchmarkRun("next", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, next)
	queued := pl.WaitCondition(t, next, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy)
	if status, msg := argoHealth(t, queued); status != "Progressing" || !strings.Contains(msg, "Queued") {
		t.Errorf("Argo CD health of a queued run %s: %s", status, msg)
	}
	if c := findCond(queued, cbv1.ConditionReconciling); c.Status != metav1.ConditionTrue {
		t.Errorf("Reconciling %s while queued", c.Status)
	}

	// A GitOps sync puts the declared size back, and cass-operator starts scaling down.
	synced := pl.Datacenter(t, dc)
	synced.Spec.Size = 3
	if err := env.Client.Update(context.Background(), synced); err != nil {
		t.Fatal(err)
	}
	got := pl.WaitCondition(t, run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterDrifted)
	if c := findCond(got, cbv1.ConditionDatacenterReady); !strings.Contains(c.Message, "spec.size is 3") {
		t.Errorf("drift not named: %s", c.Message)
	}
	play.Eventually(t, 10*time.Second, "writers suspended", func() error {
		j := pl.WaitJob(t, ns, "drifted-writer")
		if !ptr.Deref(j.Spec.Suspend, false) {
			return errNotYet
		}
		return nil
	})
	// The Job controller has not stopped the pods yet: the lock must hold.
	time.Sleep(time.Second)
	if holder := pl.Datacenter(t, dc).Annotations[cbv1.LockAnnotation]; holder != ns+"/drifted" {
		t.Fatalf("released while its writers still run: lock %q", holder)
	}
	if n := pl.Run(t, next); n.Status.StartTime != nil {
		t.Fatal("the next run started while the drifted run's writers still ran")
	}
	pl.JobRunning(t, writers, 0) // the Job controller deleted the suspended Job's pods
	done := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonDatacenterDrifted)
	if c := findCond(done, cbv1.ConditionDatacenterRestored); c.Status != metav1.ConditionTrue {
		t.Errorf("DatacenterRestored %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 3 || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("datacenter size %d config %s", d.Spec.Size, d.Spec.Config)
	}
	play.Eventually(t, 10*time.Second, "the next run takes the datacenter", func() error {
		if pl.Datacenter(t, dc).Annotations[cbv1.LockAnnotation] != ns+"/next" {
			return errNotYet
		}
		return nil
	})
}

// A run deleted with --cascade=orphan and created again under the same name runs its own
// Jobs: the earlier run's Job is deleted, not adopted, and its pods' reports are not read.
func TestRecreatedRunDoesNotAdoptTheEarlierRunsJobs(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	ctx := context.Background()
	first := builders.MakeBenchmarkRun("again", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, first)
	setup := pl.WaitJob(t, ns, "again-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "4.0.0-earlier", Nodes: 1})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	oldWriters := pl.WaitJob(t, ns, "again-writer")
	pl.Pods(t, oldWriters, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 1, 777, "")}})
	// The earlier run stores its writer's report before it goes, in a ConfigMap of the name the
	// second run's report takes: the second run must not be refused for it, nor read it.
	play.Eventually(t, 20*time.Second, "the earlier run's report ConfigMap", func() error {
		return env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "again-reports-0"}, &corev1.ConfigMap{})
	})

	if err := env.Client.Delete(ctx, first, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	// Play the garbage collector: orphan the Jobs, then let the run go.
	play.Eventually(t, 20*time.Second, "the run gives the datacenter back", func() error {
		got := &cbv1.BenchmarkRun{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(first), got); err != nil {
			return err
		}
		if controllerutil.ContainsFinalizer(got, cbv1.Finalizer) {
			return errNotYet
		}
		return nil
	})
	play.Eventually(t, 10*time.Second, "the Jobs orphaned", func() error {
		var js batchv1.JobList
		if err := env.Client.List(ctx, &js, client.InNamespace(ns)); err != nil {
			return err
		}
		for i := range js.Items {
			j := &js.Items[i]
			if len(j.OwnerReferences) == 0 {
				continue
			}
			j.OwnerReferences = nil
			if err := env.Client.Update(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	// The apiserver's orphan finalizer is the garbage collector's to remove; the controller may
	// still write the run's status meanwhile, so a conflict is read again and retried.
	play.Eventually(t, 10*time.Second, "the orphan finalizer removed", func() error {
		got := &cbv1.BenchmarkRun{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(first), got); apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		got.Finalizers = nil
		if err := env.Client.Update(ctx, got); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
	play.Eventually(t, 10*time.Second, "the first run is gone", func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(first), &cbv1.BenchmarkRun{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})

	second := builders.MakeBenchmarkRun("again", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, second)
	var newSetup *batchv1.Job
	play.Eventually(t, 20*time.Second, "the second run's own setup Job", func() error {
		j := &batchv1.Job{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "again-setup"}, j); err != nil {
			return err
		}
		if !metav1.IsControlledBy(j, second) {
			return fmt.Errorf("Job again-setup is still the earlier run's")
		}
		newSetup = j
		return nil
	})
	if c := findCond(pl.Run(t, second), cbv1.ConditionSchemaReady); c.Status == metav1.ConditionTrue {
		t.Fatalf("the second run read the earlier setup report: %s", c.Message)
	}
	pl.Pods(t, newSetup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 1})}})
	pl.FinishJob(t, newSetup, []int32{0}, nil)
	var writers *batchv1.Job
	play.Eventually(t, 20*time.Second, "the second run's own writer Job", func() error {
		j := &batchv1.Job{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "again-writer"}, j); err != nil {
			return err
		}
		if !metav1.IsControlledBy(j, second) {
			return fmt.Errorf("Job again-writer is still the earlier run's")
		}
		writers = j
		return nil
	})
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 1, 1000, "")}})
	pl.FinishJob(t, writers, []int32{0}, nil)
	done := pl.WaitCondition(t, second, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if v := done.Status.Datacenter.CassandraVersion; v != "5.0.4" {
		t.Errorf("setup report from the earlier run: version %q", v)
	}
	if r := done.Status.Results; r == nil || r.Operations != 1000 {
		t.Errorf("results include the earlier run's writer: %+v", r)
	}
	if len(done.Status.WriterReports) != 1 || done.Status.WriterReports[0].PodUID == "" {
		t.Errorf("writer reports %+v", done.Status.WriterReports)
	}
	cm := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "again-reports-0"}, cm); err != nil {
		t.Fatal(err)
	} else if !metav1.IsControlledBy(cm, second) {
		t.Errorf("ConfigMap again-reports-0 is not the second run's: %+v", cm.OwnerReferences)
	}
}

// A finished writer's pod deleted before its Job completes (a node drain) loses nothing: its
// report was stored the first time it was read.
func TestAWritersResultSurvivesItsPod(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	ctx := context.Background()
	run := builders.MakeBenchmarkRun("drained", ns).Datacenter("dc1").Writers(2).Duration(time.Second).Obj()
	pl.Create(t, run)
	setup := pl.WaitJob(t, ns, "drained-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 1})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	writers := pl.WaitJob(t, ns, "drained-writer")
	pl.JobRunning(t, writers, 2)
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 2, 4000, "")}, 1: {Running: true}})
	play.Eventually(t, 10*time.Second, "writer 0's report stored", func() error {
		if got := pl.Run(t, run); len(got.Status.WriterReports) != 1 {
			return fmt.Errorf("reports %+v", got.Status.WriterReports)
		}
		return nil
	})
	var pods corev1.PodList
	if err := env.Client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{cbv1.ComponentLabel: "writer"}); err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		if pods.Items[i].Annotations[batchv1.JobCompletionIndexAnnotation] == "0" {
			if err := env.Client.Delete(ctx, &pods.Items[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	pl.Pods(t, writers, map[int32]play.PodResult{1: {Message: play.WriterSummary(t, 1, 2, 6000, "")}})
	pl.FinishJob(t, writers, []int32{0, 1}, nil)
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if r := got.Status.Results; r == nil || r.Operations != 10000 || r.WritersReported != 2 {
		t.Errorf("results %+v", r)
	}
}

// A scale-up that cannot finish (a pod that cannot be scheduled keeps ScalingUp True, and
// cass-operator refuses size changes meanwhile) does not hold the datacenter for ever: the
// restore waits until the deadline, then releases the lock and names the pending pod and what
// to do.
func TestRestoreStuckBehindAScaleUpReleasesTheLockAndSaysWhy(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("stuck-scale", ns).Datacenter("dc1").Size(5).Writers(1).Duration(time.Second).Obj()
	run.Spec.Deadlines.Prepare = &metav1.Duration{Duration: 3 * time.Second}
	pl.Create(t, run)
	play.Eventually(t, 10*time.Second, "patched", func() error {
		if pl.Datacenter(t, dc).Generation == gen {
			return errNotYet
		}
		return nil
	})
	patched := pl.Datacenter(t, dc)
	if err := kube.SetDatacenterStatus(context.Background(), env.Client, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterScalingUp, corev1.ConditionTrue, "")
	}); err != nil {
		t.Fatal(err)
	}
	stuck := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "c1-dc1-default-sts-4", Namespace: ns, Labels: patched.GetDatacenterLabels()},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "cassandra", Image: "cassandra"}}}}
	pl.Create(t, stuck)
	stuck.Status.Phase = corev1.PodPending
	stuck.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/3 nodes are available: 3 Insufficient cpu"}}
	if err := env.Client.Status().Update(context.Background(), stuck); err != nil {
		t.Fatal(err)
	}
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonPrepareDeadlineExceeded)
	c := findCond(got, cbv1.ConditionDatacenterRestored)
	if c.Reason != cbv1.ReasonRestoreStuck || !strings.Contains(c.Message, "c1-dc1-default-sts-4 (Pending: 0/3 nodes are available") ||
		!strings.Contains(c.Message, "spec.size back to 3") {
		t.Errorf("DatacenterRestored %s: %s", c.Reason, c.Message)
	}
	if d := pl.Datacenter(t, dc); d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("still locked by %s", d.Annotations[cbv1.LockAnnotation])
	}
}
