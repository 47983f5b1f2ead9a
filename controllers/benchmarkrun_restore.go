package controllers

import (
	"fmt"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
)

// The restore stage: stop the run's Jobs, then give the datacenter back (internal/lending).

// giveBack stops the run's own Jobs, then restores the datacenter from what status recorded
// and releases the lock. Its result is done once the datacenter is given back (or cannot be
// given back, with the reason in DatacenterRestored), false while it must wait.
func (d *decider) giveBack(since time.Time) stageResult {
	run := d.run
	var r stageResult
	deadline := since.Add(prepareTimeout(run))
	expired := !d.o.now.Before(deadline)
	if c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterRestored); lending.Final(c) {
		return complete
	}
	// Writers of a failed run must not go on loading the datacenter once it is released:
	// the next run would measure under their load.
	var running []string
	for _, component := range []string{jobs.ComponentPreflight, jobs.ComponentSetup, jobs.ComponentWriter} {
		job := d.o.jobs[component]
		if job == nil {
			continue
		}
		if done, _ := jobs.Finished(job); done {
			continue
		}
		if !ptr.Deref(job.Spec.Suspend, false) {
			r.stop = append(r.stop, job)
		}
		// Suspended pods get their grace period: they may load the datacenter until gone.
		if !ptr.Deref(job.Spec.Suspend, false) || job.Status.Active > 0 || ptr.Deref(job.Status.Terminating, 0) > 0 {
			running = append(running, job.Name)
		}
	}
	if len(running) > 0 && !expired {
		r.set(cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonStoppingJobs, fmt.Sprintf(
			"stopping Job(s) %s before the datacenter is given back", strings.Join(running, ", ")))
		r.requeue(deadline.Sub(d.o.now))
		return r
	}
	settled := d.settleDisruptions(expired)
	r.merge(settled)
	if !settled.done {
		return r
	}
	if len(d.o.several) > 0 {
		sub := d.restoreSeveral(expired)
		r.merge(sub)
		// A change brings the next pass through the datacenter's watch; a wait is bounded.
		if !sub.done && sub.dc == nil {
			r.requeue(deadline.Sub(d.o.now))
		}
		r.done = sub.done
		return r
	}
	// A datacenter the manager does not watch was never read: it is nil, as a deleted one.
	// While the restore waits for cass-operator to finish resizing, it nudges cass-operator
	// as prepare does.
	var nudge *string
	var next time.Duration
	if d.o.dc != nil {
		nudge, next = lending.Nudge(d.o.dc, since, d.o.now, d.o.nudgeInterval)
	}
	plan := planRestore(run, d.o.dc, d.o.lender, d.o.dcPendingPods, expired, nudge)
	r.dc = plan.Change
	r.set(cbv1.ConditionDatacenterRestored, plan.Status, plan.Reason, plan.Message)
	if !plan.Done {
		r.requeue(deadline.Sub(d.o.now))
		r.requeueAt(next)
	}
	r.done = plan.Done
	return r
}

// planRestore decides how to give the datacenter back (lending.PlanRestore). A datacenter the
// run's sweep holds is the sweep's to put back: the next point starts from what this run left.
func planRestore(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, lender *cbv1.BenchmarkSweep, pendingPods []string, expired bool,
	nudge *string) lending.Plan {
	r := lending.Restore{Holder: datacenter.RunHolder(types.NamespacedName{Namespace: run.Namespace, Name: run.Name}), DC: dc,
		PendingPods: pendingPods, Expired: expired, Nudge: nudge, KeepChanges: run.Spec.Datacenter != nil && run.Spec.Datacenter.KeepChanges}
	if dc != nil && lentBy(lender, dc) {
		r.LentBy = lender.Name
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterRestored); c != nil && c.Reason == cbv1.ReasonRefused {
		r.Refused = c.Message
	}
	if st := run.Status.Datacenter; st != nil {
		r.Originals = lending.OriginalsOf(&st.HeldDatacenter)
	}
	if orig := r.Originals; orig != nil {
		r.Changed = run.Status.Datacenter.Changed
		r.Set = &lending.Values{Size: orig.Size, Config: orig.Config}
		if size, config, err := target(run); err == nil {
			// An error means the run never got a target, so it never patched.
			r.Set = &lending.Values{Size: size, Config: config}
		}
	}
	return lending.PlanRestore(r)
}
