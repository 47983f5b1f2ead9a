package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// startSweepCrashingManager starts a manager whose BenchmarkSweep reconciler writes through a
// crashing client; the BenchmarkRun reconciler's writes die with it but are no crash points
// (TestCrashAfterEveryWrite has those).
func startSweepCrashingManager(t *testing.T, cfg *rest.Config, at crashPoint, ns string) (*manager, *crashingClient) {
	t.Helper()
	cc := newCrashingClient(nil, at, ns)
	mgr, err := controllers.NewManager(cfg, controllers.Options{
		MetricsAddr: "0", ProbeAddr: "0", Image: testImage, ProgressInterval: 500 * time.Millisecond, SkipNameValidation: true,
		WrapClient:      func(c client.Client) client.Client { return cc.quietly(c) },
		WrapSweepClient: func(c client.Client) client.Client { cc.Client = c; return cc },
	})
	if err != nil {
		t.Fatal(err)
	}
	return start(t, mgr), cc
}

// sweepCrashScenario runs a sweep of two points (writers 1 and 2) whose template sizes the
// datacenter from 1 to 3 nodes and tunes it, with the manager killed right after the sweep's
// write at (the zero point: never) and restarted at once. It checks that the sweep succeeded
// with both points, each run created once, and the datacenter back at its original size and
// config and unlocked; it returns the sweep's writes and whether the manager died.
func sweepCrashScenario(t *testing.T, at crashPoint, restore cbv1.SweepRestore) ([]crashPoint, bool) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	cfg := managerConfig(t, ns)
	m, cc := startSweepCrashingManager(t, cfg, at, ns)
	sw := atEndSweep("crash", ns, 1, 2)
	sw.Spec.Restore = restore
	sw.Spec.Template.Datacenter.Size = ptr.To[int32](3)
	pl.Create(t, sw)
	a := &autopilot{ns: ns, played: map[string]bool{}}
	restarted := a.drive(t, m, cc, cfg, at, 60*time.Second, func() (bool, string) {
		got := getSweep(t, sw)
		return meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded) != nil && len(got.Finalizers) == 0,
			fmt.Sprintf("the sweep did not finish: phase %s, progress %q, finalizers %v, conditions %+v",
				got.Status.Phase, got.Status.Progress, got.Finalizers, got.Status.Conditions)
	})
	got := getSweep(t, sw)
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Errorf("crash after %s: Succeeded %s/%s: %s", at, c.Status, c.Reason, c.Message)
	}
	if got.Status.Completed != 2 || got.Status.Failed != 0 {
		t.Errorf("crash after %s: %d points completed, %d failed, want 2 and 0", at, got.Status.Completed, got.Status.Failed)
	}
	var runs cbv1.BenchmarkRunList
	if err := env.Client.List(context.Background(), &runs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(runs.Items) != 2 {
		t.Errorf("crash after %s: %d runs, want one per point", at, len(runs.Items))
	}
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 1 || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("crash after %s: datacenter at size %d config %s, want 1 %s", at, d.Spec.Size, d.Spec.Config, originalConfig)
	}
	if holder := d.Annotations[cbv1.LockAnnotation]; holder != "" {
		t.Errorf("crash after %s: datacenter still locked by %s", at, holder)
	}
	m.stop()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return append([]crashPoint(nil), cc.writes...), restarted
}

// TestSweepCrashAfterEveryWrite kills the manager after each API write of a sweep that holds
// its datacenter (restore atEnd) in turn — the finalizer, the lock, the runs it creates, its
// status writes and the restore — restarts it, and checks that the sweep still ends Succeeded
// with both points and the datacenter restored and unlocked. A sweep with restore afterEach
// leaves the datacenter to its runs; its crash points are the creates and status writes.
func TestSweepCrashAfterEveryWrite(t *testing.T) {
	for _, restore := range []cbv1.SweepRestore{cbv1.RestoreAtEnd, cbv1.RestoreAfterEach} {
		t.Run(string(restore), func(t *testing.T) {
			crashAfterEveryWrite(t, func(t *testing.T, at crashPoint) ([]crashPoint, bool) { return sweepCrashScenario(t, at, restore) })
		})
	}
}
