package controllers

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
)

// A finished sweep's conditions tell how each of its stages ended, as a run's do.
func TestSettleSweep(t *testing.T) {
	cond := func(ct, status, reason string) metav1.Condition {
		return metav1.Condition{Type: ct, Status: metav1.ConditionStatus(status), Reason: reason, Message: "m"}
	}
	cases := map[string]struct {
		restore cbv1.SweepRestore
		conds   []metav1.Condition
		want    map[string]string
	}{
		"failed while it waited for its datacenter": {restore: cbv1.RestoreAtEnd,
			conds: []metav1.Condition{cond(cbv1.ConditionValid, "True", cbv1.ReasonPointsValid),
				cond(cbv1.ConditionDatacenterLocked, "False", cbv1.ReasonDatacenterBusy),
				cond(cbv1.ConditionSucceeded, "False", cbv1.ReasonPrepareDeadlineExceeded)},
			want: map[string]string{cbv1.ConditionDatacenterLocked: "False/NotReached", cbv1.ConditionDatacenterRestored: "False/NotReached",
				cbv1.ConditionValid: "True/PointsValid"}},
		"an invalid point, holding the datacenter": {restore: cbv1.RestoreAtEnd,
			conds: []metav1.Condition{cond(cbv1.ConditionValid, "False", cbv1.ReasonInvalidPoint), cond(cbv1.ConditionSucceeded, "False", cbv1.ReasonInvalidPoint)},
			want:  map[string]string{cbv1.ConditionDatacenterLocked: "False/NotReached", cbv1.ConditionDatacenterRestored: "False/NotReached"}},
		"an invalid point, each run restoring": {restore: cbv1.RestoreAfterEach,
			conds: []metav1.Condition{cond(cbv1.ConditionValid, "False", cbv1.ReasonInvalidPoint), cond(cbv1.ConditionSucceeded, "False", cbv1.ReasonInvalidPoint)},
			want:  map[string]string{cbv1.ConditionValid: "False/InvalidPoint"}},
		"not finished: nothing settled": {restore: cbv1.RestoreAtEnd,
			conds: []metav1.Condition{cond(cbv1.ConditionDatacenterLocked, "False", cbv1.ReasonDatacenterBusy)},
			want:  map[string]string{cbv1.ConditionDatacenterLocked: "False/DatacenterBusy"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sw := &cbv1.BenchmarkSweep{Spec: cbv1.BenchmarkSweepSpec{Restore: tc.restore}}
			sw.Status.Conditions = append([]metav1.Condition(nil), tc.conds...)
			settleSweep(sw, t0)
			for ct, want := range tc.want {
				if c := meta.FindStatusCondition(sw.Status.Conditions, ct); c == nil || string(c.Status)+"/"+c.Reason != want {
					t.Errorf("%s = %+v, want %s", ct, c, want)
				}
			}
			if !sweepFinished(sw) {
				return
			}
			if tc.restore == cbv1.RestoreAfterEach && meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionDatacenterLocked) != nil {
				t.Error("a sweep that never holds its datacenter got a DatacenterLocked condition")
			}
			for _, c := range sw.Status.Conditions {
				if conditions.InProgress(c.Reason) {
					t.Errorf("the sweep finished with %s=%s, a reason that says it is under way", c.Type, c.Reason)
				}
			}
		})
	}
}
