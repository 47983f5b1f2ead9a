package controllers_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// A tuning run waiting for a datacenter that does not settle (with one node, cass-operator
// waits in its error backoff with nothing to wake it) asks cass-operator to look again, by
// changing cbv1.ReconcileRequestedAnnotation every nudge interval, and does so again while
// cass-operator rolls out what it gave back; the datacenter is the user's, so the annotation
// goes once that roll is done. cass-operator is played: the datacenter never reports the run's
// generation, so the run fails at its prepare deadline and gives the datacenter back, which
// then settles.
func TestARunWaitingForItsChangeNudgesCassOperatorAndLeavesNoNudgeBehind(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	const every = 2 * time.Second
	startManagerWith(t, managerConfig(t, ns), controllers.Options{MetricsAddr: "0", NudgeInterval: every})
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("nudge", ns).Datacenter("dc1").CassandraYaml(map[string]any{"concurrent_writes": 48}).
		Writers(1).Duration(time.Second).Obj()
	run.Spec.Deadlines.Prepare = &metav1.Duration{Duration: 6 * every}
	pl.Create(t, run)
	pl.PassPreflight(t, run)
	play.Eventually(t, 10*time.Second, "the run's patch", func() error {
		if pl.Datacenter(t, dc).Generation == gen {
			return errNotYet
		}
		return nil
	})
	// Every value the annotation takes while the run waits, in order.
	var seen []string
	play.Eventually(t, 5*every, "the annotation set and then changed again", func() error {
		v := pl.Datacenter(t, dc).Annotations[cbv1.ReconcileRequestedAnnotation]
		if v != "" && (len(seen) == 0 || seen[len(seen)-1] != v) {
			seen = append(seen, v)
		}
		if len(seen) < 2 {
			return errNotYet
		}
		return nil
	})
	first, err := time.Parse(time.RFC3339, seen[0])
	if err != nil {
		t.Fatalf("%s=%q is not an RFC 3339 time: %v", cbv1.ReconcileRequestedAnnotation, seen[0], err)
	}
	if second, _ := time.Parse(time.RFC3339, seen[1]); second.Sub(first) < every {
		t.Errorf("nudged at %s and again at %s, less than the interval (%s) apart", seen[0], seen[1], every)
	}
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonPrepareDeadlineExceeded)
	restored := findCond(got, cbv1.ConditionDatacenterRestored)
	if restored.Status != metav1.ConditionTrue || restored.Reason != cbv1.ReasonRestored {
		t.Fatalf("DatacenterRestored %s/%s: %s", restored.Status, restored.Reason, restored.Message)
	}
	// The restore patch rolls the datacenter again: the run, its outcome known and the lock
	// released, nudges on until cass-operator has rolled it out, its finalizer kept.
	play.Eventually(t, 3*every, "a nudge of the give-back roll", func() error {
		v := pl.Datacenter(t, dc).Annotations[cbv1.ReconcileRequestedAnnotation]
		if at, err := time.Parse(time.RFC3339, v); err != nil || at.Before(restored.LastTransitionTime.Time) {
			return errNotYet
		}
		return nil
	})
	if d := pl.Datacenter(t, dc); d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("still locked by %s while the give-back rolls", d.Annotations[cbv1.LockAnnotation])
	}
	if f := pl.Run(t, run).Finalizers; len(f) == 0 {
		t.Error("the finalizer went before cass-operator rolled out the restore")
	}
	pl.Settle(t, dc)
	play.Eventually(t, 10*time.Second, "the nudge removed and the finalizer gone", func() error {
		if v, ok := pl.Datacenter(t, dc).Annotations[cbv1.ReconcileRequestedAnnotation]; ok {
			return fmt.Errorf("%s=%s still on the datacenter", cbv1.ReconcileRequestedAnnotation, v)
		}
		if f := pl.Run(t, run).Finalizers; len(f) != 0 {
			return fmt.Errorf("finalizers left: %v", f)
		}
		return nil
	})
	t.Logf("nudges seen while the run waited: %q", seen)
}
