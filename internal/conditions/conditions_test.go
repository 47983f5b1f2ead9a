package conditions

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestKstatus(t *testing.T) {
	cases := map[string]struct {
		succeeded                   string // "", "True" or "False"
		ready, reconciling, stalled metav1.ConditionStatus
	}{
		"in progress": {ready: metav1.ConditionFalse, reconciling: metav1.ConditionTrue, stalled: metav1.ConditionFalse},
		"succeeded":   {succeeded: "True", ready: metav1.ConditionTrue, reconciling: metav1.ConditionFalse, stalled: metav1.ConditionFalse},
		"failed":      {succeeded: "False", ready: metav1.ConditionFalse, reconciling: metav1.ConditionFalse, stalled: metav1.ConditionTrue},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var conds []metav1.Condition
			if tc.succeeded != "" {
				Set(&conds, 2, t0, cbv1.ConditionSucceeded, metav1.ConditionStatus(tc.succeeded), "WriterFailed", "writer 1 failed")
			}
			Kstatus(&conds, 2, t0, "Running", "2 of 3 writers running")
			for ct, want := range map[string]metav1.ConditionStatus{cbv1.ConditionReady: tc.ready, cbv1.ConditionReconciling: tc.reconciling, cbv1.ConditionStalled: tc.stalled} {
				c := meta.FindStatusCondition(conds, ct)
				if c == nil || c.Status != want || c.ObservedGeneration != 2 || c.Reason == "" {
					t.Errorf("%s = %+v, want %s", ct, c, want)
				}
			}
		})
	}
}

func TestSucceededIsFinalAndChangesAreStateChanges(t *testing.T) {
	var conds []metav1.Condition
	if !Set(&conds, 1, t0, cbv1.ConditionSucceeded, metav1.ConditionFalse, "WriterFailed", "x") {
		t.Fatal("first Succeeded not a change")
	}
	if Set(&conds, 1, t0, cbv1.ConditionSucceeded, metav1.ConditionTrue, "Succeeded", "y") || conds[0].Status != metav1.ConditionFalse {
		t.Error("Succeeded flipped")
	}
	before := append([]metav1.Condition(nil), conds...)
	Set(&conds, 1, t0, cbv1.ConditionWritersComplete, metav1.ConditionFalse, "WritersRunning", "1 of 2")
	if got := Changed(before, conds); len(got) != 1 || got[0].Type != cbv1.ConditionWritersComplete {
		t.Errorf("Changed = %+v", got)
	}
	before = append([]metav1.Condition(nil), conds...)
	Set(&conds, 1, t0, cbv1.ConditionWritersComplete, metav1.ConditionFalse, "WritersRunning", "2 of 2")
	if got := Changed(before, conds); len(got) != 0 {
		t.Errorf("a message-only change counted: %+v", got)
	}
}

// t0 is the clock the tests give Set and Kstatus.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// A condition's transition time is the caller's, not the machine's: a reconciler with a fake
// clock gets that clock's times in status.
func TestTransitionTimesComeFromTheCaller(t *testing.T) {
	var conds []metav1.Condition
	Set(&conds, 1, t0, cbv1.ConditionWritersComplete, metav1.ConditionFalse, "WritersRunning", "1 of 2")
	Kstatus(&conds, 1, t0, "Running", "1 of 2 writers running")
	later := t0.Add(time.Hour)
	// A message-only change keeps the time the status last transitioned.
	Set(&conds, 1, later, cbv1.ConditionWritersComplete, metav1.ConditionFalse, "WritersRunning", "2 of 2")
	Set(&conds, 1, later, cbv1.ConditionSucceeded, metav1.ConditionTrue, "Succeeded", "done")
	Kstatus(&conds, 1, later, "", "")
	want := map[string]time.Time{
		cbv1.ConditionWritersComplete: t0, cbv1.ConditionSucceeded: later,
		cbv1.ConditionReady: later, cbv1.ConditionReconciling: later, cbv1.ConditionStalled: t0,
	}
	for ct, at := range want {
		if c := meta.FindStatusCondition(conds, ct); c == nil || !c.LastTransitionTime.Time.Equal(at) {
			t.Errorf("%s transitioned at %+v, want %s", ct, c, at)
		}
	}
}
