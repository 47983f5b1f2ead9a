package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// tunedConfig is originalConfig with the sweep template's concurrent_writes merged in.
const tunedConfig = `{"cassandra-yaml":{"concurrent_writes":64,"num_tokens":16},"jvm-server-options":{"max_heap_size":"4G"}}`

// atEndSweep is a sweep over writers.replicas whose template tunes concurrent_writes, with
// restore atEnd.
func atEndSweep(name, ns string, writers ...any) *cbv1.BenchmarkSweep {
	sw := builders.MakeSweep(name, ns).Axis("writers.replicas", writers...).Obj()
	sw.Spec.Template.Datacenter = builders.MakeBenchmarkRun("", ns).CassandraYaml(map[string]any{"concurrent_writes": 64}).Obj().Spec.Datacenter
	sw.Spec.Restore = cbv1.RestoreAtEnd
	return sw
}

// waitSweepLock waits until the datacenter's lock annotation is want ("" for none).
func waitSweepLock(t *testing.T, dc string, ns, want string) {
	t.Helper()
	d := builders.MakeDatacenter(dc, ns).Obj()
	play.Eventually(t, 30*time.Second, fmt.Sprintf("waiting for lock %q", want), func() error {
		if got := pl.Datacenter(t, d).Annotations[cbv1.LockAnnotation]; got != want {
			return fmt.Errorf("lock is %q", got)
		}
		return nil
	})
}

// A sweep with restore atEnd takes the datacenter before its first point and holds it: the
// first point patches it, the points that change only the writers patch nothing, no run puts
// it back, a run applied meanwhile queues behind the sweep, and the sweep restores it once.
func TestSweepAtEndHoldsTheDatacenterAndRestoresOnce(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	gen0 := pl.Datacenter(t, dc).Generation

	sw := atEndSweep("hold", ns, 1, 2, 3)
	pl.Create(t, sw)
	waitSweepLock(t, "dc1", ns, "sweep:"+ns+"/hold")
	got := waitSweepCondition(t, sw, cbv1.ConditionDatacenterLocked, metav1.ConditionTrue, cbv1.ReasonLocked)
	if st := got.Status.Datacenter; st == nil || st.OriginalSize == nil || *st.OriginalSize != 1 || st.OriginalConfig == nil ||
		!datacenter.SameJSON(st.OriginalConfig.Raw, json.RawMessage(originalConfig)) {
		t.Fatalf("originals recorded %+v", st)
	}

	// A run applied while the sweep holds the datacenter waits for the whole sweep.
	time.Sleep(1100 * time.Millisecond) // creation timestamps have one-second resolution
	outsider := builders.MakeBenchmarkRun("outsider", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, outsider)
	queued := pl.WaitCondition(t, outsider, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy)
	if c := findCond(queued, cbv1.ConditionDatacenterReady); !strings.Contains(c.Message, "BenchmarkSweep "+ns+"/hold") {
		t.Errorf("the queued run does not name the sweep: %s", c.Message)
	}

	first := waitSweepRun(t, sw, "hold-0-0")
	playTuning(t, first, "dc1")
	tunedGen := pl.Datacenter(t, dc).Generation
	if tunedGen != gen0+1 {
		t.Errorf("the first point took the datacenter from generation %d to %d, want one patch", gen0, tunedGen)
	}
	finishRun(t, first, 1, 1000, false)
	done := pl.Run(t, first)
	if c := findCond(done, cbv1.ConditionDatacenterRestored); c.Reason != cbv1.ReasonHeldBySweep || c.Status != metav1.ConditionTrue {
		t.Errorf("the first point's DatacenterRestored %s/%s: %s", c.Status, c.Reason, c.Message)
	}

	for i, writers := range []int32{2, 3} {
		name := fmt.Sprintf("hold-%d-0", i+1)
		run := waitSweepRun(t, sw, name)
		// The datacenter already has the point's size and config: nothing to patch, nothing to
		// wait for; setup starts at once.
		pl.WaitJob(t, ns, name+"-setup")
		r := pl.Run(t, run)
		if st := r.Status.Datacenter; st == nil || *st.OriginalSize != 1 || !datacenter.SameJSON(st.OriginalConfig.Raw, json.RawMessage(originalConfig)) ||
			st.PatchedGeneration != tunedGen || !st.Changed {
			t.Errorf("%s datacenter status %+v, want the sweep's originals and generation %d", name, st, tunedGen)
		}
		d := pl.Datacenter(t, dc)
		if d.Generation != tunedGen || d.Annotations[cbv1.LockAnnotation] != "sweep:"+ns+"/hold" || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(tunedConfig)) {
			t.Errorf("during %s: generation %d (want %d), lock %q, config %s", name, d.Generation, tunedGen, d.Annotations[cbv1.LockAnnotation], d.Spec.Config)
		}
		if n := pl.Run(t, outsider); n.Status.StartTime != nil {
			t.Fatalf("the outsider started during the sweep, during %s", name)
		}
		finishRun(t, run, writers, 1000, false)
	}

	got = waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterRestored); c == nil || c.Reason != cbv1.ReasonRestored {
		t.Errorf("sweep DatacenterRestored %+v", c)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterLocked); c == nil || c.Reason != cbv1.ReasonReleased {
		t.Errorf("sweep DatacenterLocked %+v", c)
	}
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 1 || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("not restored: size %d config %s", d.Spec.Size, d.Spec.Config)
	}
	// One patch to tune, one to restore: afterEach would have made six.
	if d.Generation != gen0+2 || got.Status.Datacenter.RestoredGeneration != d.Generation {
		t.Errorf("datacenter generation %d after the sweep, want %d (one patch, one restore); restoredGeneration %d",
			d.Generation, gen0+2, got.Status.Datacenter.RestoredGeneration)
	}
	pl.Settle(t, dc)
	waitSweepLock(t, "dc1", ns, ns+"/outsider")
	play.Eventually(t, 10*time.Second, "the sweep's finalizer removed", func() error {
		if f := getSweep(t, sw).Finalizers; len(f) != 0 {
			return fmt.Errorf("finalizers %v", f)
		}
		return nil
	})
	assertSweepEvents(t, sw, cbv1.ReasonLocked, cbv1.ReasonRestored, cbv1.ReasonReleased)
}

// A sweep deleted mid-point stops its run (the run gives the datacenter back to the sweep,
// not to its originals), then restores the datacenter and releases the lock before it goes.
func TestSweepAtEndDeletedMidwayRestores(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	ctx := context.Background()

	sw := atEndSweep("gone", ns, 1, 2)
	sw.Spec.Template.Datacenter.Size = ptr.To[int32](2)
	sw.Spec.Template.Writers.Duration = &metav1.Duration{Duration: time.Hour}
	pl.Create(t, sw)
	run := waitSweepRun(t, sw, "gone-0-0")
	playTuning(t, run, "dc1")
	setup := pl.WaitJob(t, ns, "gone-0-0-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 2})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	writers := pl.WaitJob(t, ns, "gone-0-0-writer")
	pl.JobRunning(t, writers, 1)
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Running: true}})

	if err := env.Client.Delete(ctx, getSweep(t, sw)); err != nil {
		t.Fatal(err)
	}
	got := waitSweepCondition(t, sw, cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonStoppingRuns)
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterRestored); !strings.Contains(c.Message, "gone-0-0") {
		t.Errorf("the sweep does not name the run it waits for: %s", c.Message)
	}
	// The writers still run: the datacenter must stay as the point set it.
	time.Sleep(time.Second)
	if d := pl.Datacenter(t, dc); d.Spec.Size != 2 || d.Annotations[cbv1.LockAnnotation] != "sweep:"+ns+"/gone" {
		t.Fatalf("given back while the writers ran: size %d lock %q", d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
	}
	play.Eventually(t, 10*time.Second, "writers suspended", func() error {
		if j := pl.WaitJob(t, ns, "gone-0-0-writer"); !ptr.Deref(j.Spec.Suspend, false) {
			return errNotYet
		}
		return nil
	})
	pl.JobRunning(t, writers, 0) // the Job controller deleted the suspended Job's pods

	play.Eventually(t, 30*time.Second, "the sweep is gone", func() error {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(sw), &cbv1.BenchmarkSweep{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 1 || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("not given back: size %d config %s lock %q", d.Spec.Size, d.Spec.Config, d.Annotations[cbv1.LockAnnotation])
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gone-1-0"}, &cbv1.BenchmarkRun{}); !apierrors.IsNotFound(err) {
		t.Errorf("a point ran after the sweep was deleted: %v", err)
	}
}

// A failed point with stopOnFailure ends the sweep, and the sweep puts the datacenter back.
func TestSweepAtEndStopsOnFailureAndRestores(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))

	sw := atEndSweep("halt", ns, 1, 2)
	sw.Spec.StopOnFailure = true
	pl.Create(t, sw)
	run := waitSweepRun(t, sw, "halt-0-0")
	playTuning(t, run, "dc1")
	finishRun(t, run, 1, 0, true)

	got := waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonStoppedOnFailure)
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterRestored); c == nil || c.Reason != cbv1.ReasonRestored {
		t.Errorf("sweep DatacenterRestored %+v", c)
	}
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 1 || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("not given back: size %d config %s lock %q", d.Spec.Size, d.Spec.Config, d.Annotations[cbv1.LockAnnotation])
	}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "halt-1-0"}, &cbv1.BenchmarkRun{}); !apierrors.IsNotFound(err) {
		t.Errorf("point 1 ran after a failure with stopOnFailure: %v", err)
	}
}

// The CRD refuses a sweep with restore atEnd that could not hold one datacenter.
func TestSweepAtEndAdmission(t *testing.T) {
	ns := env.Namespace(t)
	varying := atEndSweep("varying", ns, 1)
	varying.Spec.Axes = append(varying.Spec.Axes, builders.Axis("datacenterRef.name", "dc1", "dc2"))
	keep := atEndSweep("keep", ns, 1)
	keep.Spec.Template.Datacenter.KeepChanges = true
	for name, c := range map[string]struct {
		sw   *cbv1.BenchmarkSweep
		want string
	}{
		"a varying datacenterRef": {varying, "datacenterRef and datacenter.keepChanges cannot vary"},
		"keepChanges":             {keep, "keepChanges contradicts restore atEnd"},
	} {
		err := env.Client.Create(context.Background(), c.sw, client.DryRunAll)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want refused with %q", name, err, c.want)
		}
		c.sw.Spec.Restore = cbv1.RestoreAfterEach
		if err := env.Client.Create(context.Background(), c.sw, client.DryRunAll); err != nil {
			t.Errorf("%s with restore afterEach refused: %v", name, err)
		}
	}
}

// A sweep with restore atEnd applied while a run holds the datacenter waits for that run,
// creates no point meanwhile, and takes the datacenter once the run gave it back.
func TestSweepAtEndWaitsForTheRunHoldingTheDatacenter(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	first := builders.MakeBenchmarkRun("first", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, first)
	waitSweepLock(t, "dc1", ns, ns+"/first")

	sw := atEndSweep("later", ns, 1)
	pl.Create(t, sw)
	got := waitSweepCondition(t, sw, cbv1.ConditionDatacenterLocked, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy)
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterLocked); !strings.Contains(c.Message, "BenchmarkRun "+ns+"/first") {
		t.Errorf("the waiting sweep does not name the run: %s", c.Message)
	}
	time.Sleep(500 * time.Millisecond)
	if runs := sweepRuns(t, sw); len(runs) != 0 || got.Status.Datacenter != nil {
		t.Fatalf("the sweep created %d runs or recorded %+v while another run held the datacenter", len(runs), got.Status.Datacenter)
	}
	finishRun(t, first, 1, 1000, false)
	waitSweepLock(t, "dc1", ns, "sweep:"+ns+"/later")
	waitSweepRun(t, sw, "later-0-0")
}
