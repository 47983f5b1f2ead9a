package controllers

import (
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
)

// The lock stage: wait for the datacenter, take it in queue order, and record its originals
// before anything changes them.

// lock takes the datacenter unless the run holds it (or its sweep lends it), then records its
// originals once. It is done when the run holds the datacenter and its originals are stored.
func (d *decider) lock() stageResult {
	run, dc := d.run, d.o.dc
	holder, locked := datacenter.LockHolder(dc)
	mine := locked && holder == datacenter.RunHolder(d.me())
	lent := lentBy(d.o.lender, dc)
	if !mine && !lent {
		return d.take(dc, holder, locked)
	}
	st := run.Status.Datacenter
	if run.Status.StartTime == nil || st == nil || st.OriginalSize == nil {
		if lent {
			if r, ok := d.admit(dc); !ok {
				return r
			}
		}
		return d.record(dc)
	}
	return complete
}

// take locks the datacenter if it is the run's turn and the datacenter can take the run.
func (d *decider) take(dc *cassdcapi.CassandraDatacenter, holder datacenter.Holder, locked bool) stageResult {
	run := d.run
	var r stageResult
	if run.Status.StartTime != nil {
		// The run held the datacenter and someone removed its lock: what the run measures
		// from here is no longer its own.
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonLockLost, fmt.Sprintf(
			"the lock annotation %s on CassandraDatacenter %s was removed while the run held it", cbv1.LockAnnotation, keyOf(dc)))
		return r
	}
	if r, ok := d.admit(dc); !ok {
		return r
	}
	if locked && d.o.holderAlive {
		r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy,
			fmt.Sprintf("CassandraDatacenter %s is in use by %s; this run starts when it is done", keyOf(dc), holder))
		return r
	}
	if d.o.queueHead != d.me() {
		r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy,
			fmt.Sprintf("CassandraDatacenter %s is next promised to BenchmarkRun %s; this run is number %d in the queue",
				keyOf(dc), d.o.queueHead, d.o.queuePosition))
		return r
	}
	r.dc = &lending.Change{What: "locking", Lock: ptr.To(datacenter.LockValue(datacenter.RunHolder(d.me()))), Stage: cbv1.ConditionDatacenterReady}
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
		fmt.Sprintf("locking CassandraDatacenter %s", keyOf(dc)))
	return r
}

// admit tells whether the datacenter takes this run: opted in for its namespace, nothing
// only the datacenter's namespace may set, suitable for the run. A refusal fails the run or
// waits, with why, in the result.
func (d *decider) admit(dc *cassdcapi.CassandraDatacenter) (stageResult, bool) {
	run := d.run
	var r stageResult
	if ok, reason, msg := datacenter.Allows(dc, run.Namespace); !ok {
		return d.waitToFind(reason, msg), false
	}
	if msg := datacenter.CrossNamespaceDenied(run, dc); msg != "" {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonSettingNotAllowed, msg+"; the datacenter was not changed")
		return r, false
	}
	if reason, msg := datacenter.K8ssandraManaged(dc, run.Spec.Datacenter, "the run"); reason != "" {
		r.fail(cbv1.ConditionDatacenterReady, reason, msg+"; the datacenter was not changed")
		return r, false
	}
	if reason, msg := datacenter.Unsuitable(run, dc); reason != "" {
		r.fail(cbv1.ConditionDatacenterReady, reason, msg+"; the datacenter was not changed")
		return r, false
	}
	return complete, true
}

// lentBy tells whether a run's sweep holds the datacenter for it: the lock is the sweep's and
// the sweep has recorded the originals the run's target is merged into.
func lentBy(sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter) bool {
	if sw == nil || sw.Status.Datacenter == nil || sw.Status.Datacenter.OriginalSize == nil {
		return false
	}
	holder, locked := datacenter.LockHolder(dc)
	return locked && holder == datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name})
}

// record stores the datacenter's size and config before anything changes them: the next
// step changes the datacenter only once this status is stored. A run on a datacenter its
// sweep holds records the sweep's originals instead: its target is the original with its own
// tuning merged in, whatever an earlier point left, so that a point differs from the previous
// one only where their specs differ.
func (d *decider) record(dc *cassdcapi.CassandraDatacenter) stageResult {
	run := d.run
	var r stageResult
	if run.Status.StartTime == nil {
		now := metav1.NewTime(d.o.now)
		run.Status.StartTime = &now
	}
	orig := lending.Record(dc)
	what := "locked CassandraDatacenter %s and recorded its size %d and config"
	if lentBy(d.o.lender, dc) {
		orig = *sweepOriginals(d.o.lender)
		what = "CassandraDatacenter %s is held by the run's sweep (restore atEnd); recorded the sweep's original size %d and config"
	}
	size := orig.Size
	st := &cbv1.DatacenterStatus{Name: dc.Name, Namespace: dc.Namespace, OriginalSize: &size, Size: size}
	if orig.Config != nil {
		st.HadConfig = true
		st.OriginalConfig = &runtime.RawExtension{Raw: orig.Config}
	}
	run.Status.Datacenter = st
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
		fmt.Sprintf(what, keyOf(dc), size))
	return r
}

// sweepOriginals are the originals a sweep recorded.
func sweepOriginals(sw *cbv1.BenchmarkSweep) *lending.Originals {
	st := sw.Status.Datacenter
	o := &lending.Originals{Size: *st.OriginalSize}
	if st.HadConfig && st.OriginalConfig != nil {
		o.Config = st.OriginalConfig.Raw
	}
	return o
}

// waitToFind records why the run cannot start yet and fails it once the deadline passes.
func (d *decider) waitToFind(reason, msg string) stageResult {
	var r stageResult
	w := lending.WaitToFind(d.o.now, findDeadline(d.run), reason, msg,
		fmt.Sprintf("gave up after deadlines.prepare (%s)", prepareTimeout(d.run)))
	if w.Expired {
		r.fail(cbv1.ConditionDatacenterReady, w.Reason, w.Message)
		return r
	}
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, w.Reason, w.Message)
	r.requeue(w.RequeueAfter - time.Second)
	return r
}
