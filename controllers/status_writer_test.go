package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// The one event policy of both kinds: an event per condition whose status or reason a write
// changed, a Warning when it means failure.
func TestConditionEvents(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: typ + " " + reason}
	}
	locked := cond(cbv1.ConditionDatacenterLocked, metav1.ConditionTrue, cbv1.ReasonLocked)
	cases := map[string]struct {
		before, after []metav1.Condition
		want          []string
	}{
		"nothing changed: no event": {before: []metav1.Condition{locked}, after: []metav1.Condition{locked}},
		"only the message changed: no event": {before: []metav1.Condition{locked},
			after: []metav1.Condition{{Type: locked.Type, Status: locked.Status, Reason: locked.Reason, Message: "other words"}}},
		"a new condition: Normal": {after: []metav1.Condition{locked}, want: []string{"Normal Locked DatacenterLocked"}},
		"waiting for a busy datacenter is not a failure: Normal": {
			after: []metav1.Condition{cond(cbv1.ConditionDatacenterLocked, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy)},
			want:  []string{"Normal DatacenterBusy DatacenterLocked"}},
		"a stage failed for good: Warning": {
			after: []metav1.Condition{cond(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed)},
			want:  []string{"Warning WriterFailed WritersComplete"}},
		"a sweep's points failed: Succeeded False is a Warning": {
			after: []metav1.Condition{cond(cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonPointsFailed)},
			want:  []string{"Warning PointsFailed Succeeded"}},
		"a restore given up on: Warning": {
			after: []metav1.Condition{cond(cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonRestoreStuck)},
			want:  []string{"Warning RestoreStuck DatacenterRestored"}},
		"kstatus' conditions only sum up the others: no event": {
			after: []metav1.Condition{cond(cbv1.ConditionReady, metav1.ConditionFalse, "Running"), cond(cbv1.ConditionReconciling, metav1.ConditionTrue, "Running"),
				cond(cbv1.ConditionStalled, metav1.ConditionFalse, "Running")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range conditionEvents(tc.before, tc.after) {
				kind := "Normal"
				if e.warning {
					kind = "Warning"
				}
				got = append(got, kind+" "+e.reason+" "+e.action)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
