package sweep

import (
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
)

// A sweep with restore atEnd holds its datacenter from before its first point until after its
// last: it takes the lock the way a run does (other runs then queue behind it), records the
// originals, lends the datacenter to its own runs one at a time, and puts it back once. These
// are the pure decisions; the reconciler reads and writes.

// HoldsDatacenter tells whether a sweep holds its datacenter for its runs.
func HoldsDatacenter(sw *cbv1.BenchmarkSweep) bool {
	return sw.Spec.Restore == cbv1.RestoreAtEnd
}

// DatacenterKey is the datacenter every point of the sweep names: the template's (with
// restore atEnd, the CRD refuses axes that vary it).
func DatacenterKey(sw *cbv1.BenchmarkSweep) types.NamespacedName {
	return datacenter.Key(&cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: sw.Namespace}, Spec: sw.Spec.Template})
}

// PrepareTimeout is the template's deadlines.prepare: it bounds waiting for the datacenter to
// exist and admit the sweep, and putting it back.
func PrepareTimeout(sw *cbv1.BenchmarkSweep) time.Duration {
	if d := sw.Spec.Template.Deadlines.Prepare; d != nil && d.Duration > 0 {
		return d.Duration
	}
	// Only a sweep built in Go, which no API server defaulted, gets here.
	return cbv1.DefaultPrepareDeadline
}

// HoldObserved is what one pass read about the sweep's datacenter.
type HoldObserved struct {
	Sweep *cbv1.BenchmarkSweep
	Now   time.Time
	// DC is the datacenter, nil when it does not exist.
	DC *cassdcapi.CassandraDatacenter
	// HolderAlive tells whether the run or sweep in the datacenter's lock, if another, still
	// needs it.
	HolderAlive bool
	// Ahead is a run created before the sweep that waits for the datacenter: it goes first.
	Ahead string
}

// Take is the next step towards holding the datacenter.
type Take struct {
	// Lock puts the sweep's lock on the datacenter (conditional on the version read).
	Lock bool
	// Record are the originals to store in status, read from the datacenter before any point.
	Record *cbv1.SweepDatacenterStatus
	// Held: the sweep holds the datacenter and its status has the originals, so its runs may
	// use it.
	Held bool
	// Fail ends the sweep: the datacenter did not exist or admit it within deadlines.prepare.
	Fail bool
	// Lost: someone removed the sweep's lock after it recorded the originals. The sweep must
	// not lock again: it would record what its points left as the originals.
	Lost bool
	// The DatacenterLocked condition (Succeeded's when Fail).
	Status          metav1.ConditionStatus
	Reason, Message string
	RequeueAfter    time.Duration
}

// DecideTake chooses how a sweep with restore atEnd gets its datacenter. A missing or
// refusing datacenter is waited for until the template's deadlines.prepare (counted from the
// sweep's creation); a busy one for as long as it takes, as a queued run waits.
func DecideTake(o HoldObserved) Take {
	sw, dc := o.Sweep, o.DC
	key := DatacenterKey(sw)
	if dc == nil {
		return waitToFind(o, cbv1.ReasonDatacenterNotFound, fmt.Sprintf("CassandraDatacenter %s not found; waiting for it to be created", key))
	}
	me := datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name})
	holder, locked := datacenter.LockHolder(dc)
	if locked && holder == me {
		if st := sw.Status.Datacenter; st != nil && st.OriginalSize != nil {
			return Take{Held: true, Status: metav1.ConditionTrue, Reason: cbv1.ReasonLocked, Message: fmt.Sprintf(
				"the sweep holds CassandraDatacenter %s for all its points (restore atEnd) and restores size %d and the original config after the last",
				key, *st.OriginalSize)}
		}
		// Locked by an earlier pass that did not get to write status: nothing changed the
		// datacenter since, because no run uses it before the originals are stored.
		return recordTake(dc, false)
	}
	if st := sw.Status.Datacenter; st != nil && st.OriginalSize != nil {
		return Take{Lost: true, Status: metav1.ConditionFalse, Reason: cbv1.ReasonLockLost, Message: fmt.Sprintf(
			"the lock annotation %s on CassandraDatacenter %s was removed while the sweep held it", cbv1.LockAnnotation, key)}
	}
	if ok, reason, msg := datacenter.Allows(dc, sw.Namespace); !ok {
		return waitToFind(o, reason, msg)
	}
	if reason, msg := k8ssandraRefusal(sw, dc); reason != "" {
		return Take{Fail: true, Status: metav1.ConditionFalse, Reason: reason, Message: msg + "; the sweep did not lock the datacenter and created no run"}
	}
	if locked && o.HolderAlive {
		return Take{Status: metav1.ConditionFalse, Reason: cbv1.ReasonDatacenterBusy, Message: fmt.Sprintf(
			"CassandraDatacenter %s is in use by %s; the sweep starts when it is done", key, holder)}
	}
	if o.Ahead != "" {
		return Take{Status: metav1.ConditionFalse, Reason: cbv1.ReasonDatacenterBusy, Message: fmt.Sprintf(
			"BenchmarkRun %s waited for CassandraDatacenter %s before the sweep; the sweep starts when it is done", o.Ahead, key)}
	}
	if ready, why := datacenter.Ready(dc, dc.Generation); !ready {
		// A run that just gave the datacenter back leaves its restore rolling through the
		// nodes: the first point's settings check would find them restarting.
		return Take{Status: metav1.ConditionFalse, Reason: cbv1.ReasonDatacenterUpdating, Message: fmt.Sprintf(
			"CassandraDatacenter %s is changing (%s); the sweep locks it once cass-operator is done", key, why)}
	}
	return recordTake(dc, true)
}

// recordTake stores the datacenter's originals, locking it first if lock is set. The lock
// patch is conditional on the version read, so what is recorded is what was locked.
func recordTake(dc *cassdcapi.CassandraDatacenter, lock bool) Take {
	orig := lending.Record(dc)
	st := &cbv1.SweepDatacenterStatus{Name: dc.Name, Namespace: dc.Namespace, OriginalSize: &orig.Size}
	if orig.Config != nil {
		st.HadConfig = true
		st.OriginalConfig = &runtime.RawExtension{Raw: orig.Config}
	}
	return Take{Lock: lock, Record: st, Status: metav1.ConditionTrue, Reason: cbv1.ReasonLocked, Message: fmt.Sprintf(
		"locked CassandraDatacenter %s/%s for all the sweep's points and recorded its size %d and config", dc.Namespace, dc.Name, orig.Size)}
}

func waitToFind(o HoldObserved, reason, msg string) Take {
	w := lending.WaitToFind(o.Now, o.Sweep.CreationTimestamp.Add(PrepareTimeout(o.Sweep)), reason, msg,
		fmt.Sprintf("gave up after the template's deadlines.prepare (%s), before any point ran", PrepareTimeout(o.Sweep)))
	return Take{Fail: w.Expired, Status: metav1.ConditionFalse, Reason: w.Reason, Message: w.Message, RequeueAfter: w.RequeueAfter}
}

// PlanRestore decides how to put the datacenter back to the originals in the sweep's status
// (lending.PlanRestore). Whatever differs goes back: while the sweep holds the lock, its runs
// fail on anyone else's change (drift), so what differs is the sweep's points'. refused is the
// message of a restore the apiserver refused, empty when none was.
func PlanRestore(sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter, pendingPods []string, expired bool, refused string) lending.Plan {
	r := lending.Restore{Holder: datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name}), DC: dc,
		PendingPods: pendingPods, Expired: expired, Refused: refused}
	if st := sw.Status.Datacenter; st != nil && st.OriginalSize != nil {
		r.Originals = &lending.Originals{Size: *st.OriginalSize}
		if st.HadConfig && st.OriginalConfig != nil {
			r.Originals.Config = st.OriginalConfig.Raw
		}
	}
	return lending.PlanRestore(r)
}
