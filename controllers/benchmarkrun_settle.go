package controllers

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
)

// After giving back: a restore patch of a one-node datacenter makes cass-operator roll its
// pod, and that roll stalls in cass-operator's error backoff as the run's own did (see
// cbv1.ReconcileRequestedAnnotation). The run has released the lock and has its outcome; it
// keeps its finalizer and nudges cass-operator until the roll is done, then removes the
// nudge: the datacenter is the user's, and nothing of the run stays on it.

// afterGiveBack is what a run that gave its datacenter back still does before its finalizer
// goes: while wait is set, nudge cass-operator until it rolled out the restore (within the
// give-back deadline, and only while nobody else holds the datacenter); then remove the
// nudge. Done once nothing of the run is left on the datacenter.
func (d *decider) afterGiveBack(wait bool) stageResult {
	dc := d.o.dc
	if dc == nil || len(d.o.several) > 0 {
		return complete
	}
	if holder, locked := datacenter.LockHolder(dc); locked && holder != datacenter.RunHolder(d.me()) {
		// Someone else's now, nudges and all: their give-back removes the annotation.
		return complete
	}
	var r stageResult
	if wait {
		if since, until, rolling := d.restoreRolling(); rolling {
			nudge, next := lending.Nudge(dc, since, d.o.now, d.o.nudgeInterval)
			if nudge != nil {
				r.dc = &lending.Change{What: "asking cass-operator to look again at", Nudge: nudge, Stage: cbv1.ConditionDatacenterRestored}
			}
			r.requeue(until.Sub(d.o.now))
			r.requeueAt(next)
			return r
		}
	}
	if _, ok := dc.Annotations[cbv1.ReconcileRequestedAnnotation]; ok {
		r.dc = &lending.Change{What: "removing the run's nudge from", Nudge: ptr.To(""), Stage: cbv1.ConditionDatacenterRestored}
		return r
	}
	return complete
}

// restoreRolling tells whether cass-operator is still rolling out the run's restore patch,
// since when the run waits for it and until when it may.
func (d *decider) restoreRolling() (since, until time.Time, rolling bool) {
	run, dc := d.run, d.o.dc
	c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterRestored)
	st := run.Status.Datacenter
	if !restoredByPatch(c, st) {
		return since, until, false
	}
	since = c.LastTransitionTime.Time
	until = since.Add(prepareTimeout(run))
	if !d.o.now.Before(until) {
		return since, until, false
	}
	ready, _ := datacenter.Ready(dc, st.RestoredGeneration)
	return since, until, !ready || len(d.o.dcPendingPods) > 0
}

// restoredByPatch tells whether the run gave its datacenter back by a restore patch, whose
// roll it then waits for.
func restoredByPatch(c *metav1.Condition, st *cbv1.DatacenterStatus) bool {
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason == cbv1.ReasonRestored && st != nil && st.RestoredGeneration != 0
}

// rollingBack tells whether a finished run may wait for cass-operator to roll out its
// restore: the datacenter's pods are read for it.
func rollingBack(run *cbv1.BenchmarkRun) bool {
	return lending.Finished(run) && run.DeletionTimestamp.IsZero() && len(run.Finalizers) > 0 &&
		restoredByPatch(meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterRestored), run.Status.Datacenter)
}
