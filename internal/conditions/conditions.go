// Package conditions is the one helper that sets conditions on cassbench's kinds: stamped
// with the object's generation, Succeeded final once set, and telling whether a change is
// worth an event.
package conditions

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Set sets a condition stamped with generation and tells whether its status or reason
// changed: a state change worth an event. now is when a changed status transitioned: the
// caller's clock, never this package's. Succeeded is final: once set it never changes.
func Set(conds *[]metav1.Condition, generation int64, now time.Time, t string, status metav1.ConditionStatus, reason, message string) bool {
	old := meta.FindStatusCondition(*conds, t)
	if t == cbv1.ConditionSucceeded && old != nil {
		return false
	}
	changed := old == nil || old.Status != status || old.Reason != reason
	meta.SetStatusCondition(conds, metav1.Condition{
		Type:               t,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: generation,
		LastTransitionTime: metav1.NewTime(now),
	})
	return changed
}

// Changed lists the conditions of after whose status or reason differ from before, in
// after's order: the state changes of one pass, one event each.
func Changed(before, after []metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range after {
		old := meta.FindStatusCondition(before, c.Type)
		if old == nil || old.Status != c.Status || old.Reason != c.Reason {
			out = append(out, c)
		}
	}
	return out
}

// Kstatus sets Ready, Reconciling and Stalled as kstatus defines them, from the object's
// Succeeded condition: Ready True only on success; Stalled True on failure; Reconciling True
// while neither. progress is the reason and message of the work in hand while unfinished; now
// is when a changed status transitioned.
func Kstatus(conds *[]metav1.Condition, generation int64, now time.Time, progressReason, progressMessage string) {
	set := func(t string, s metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(conds, metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, ObservedGeneration: generation,
			LastTransitionTime: metav1.NewTime(now)})
	}
	f, tr := metav1.ConditionFalse, metav1.ConditionTrue
	done := meta.FindStatusCondition(*conds, cbv1.ConditionSucceeded)
	switch {
	case done != nil && done.Status == tr:
		set(cbv1.ConditionReady, tr, done.Reason, done.Message)
		set(cbv1.ConditionReconciling, f, done.Reason, "finished")
		set(cbv1.ConditionStalled, f, done.Reason, "finished")
	case done != nil:
		set(cbv1.ConditionReady, f, done.Reason, done.Message)
		set(cbv1.ConditionReconciling, f, done.Reason, "finished")
		set(cbv1.ConditionStalled, tr, done.Reason, done.Message)
	default:
		if progressReason == "" {
			progressReason, progressMessage = "Pending", "waiting to start"
		}
		set(cbv1.ConditionReady, f, progressReason, progressMessage)
		set(cbv1.ConditionReconciling, tr, progressReason, progressMessage)
		set(cbv1.ConditionStalled, f, progressReason, "making progress")
	}
}
