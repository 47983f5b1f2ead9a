package sweep

import (
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	Ahead types.NamespacedName
}

// Take is the next step towards holding the datacenter.
type Take struct {
	// Lock puts the sweep's lock on the datacenter (conditional on the version read).
	Lock bool
	// Record are the originals to store in status, read from the datacenter before any point.
	Record *cbv1.HeldDatacenter
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

// DecideTake chooses how a sweep with restore atEnd gets its datacenter, through the take
// chain every holder runs (lending.NewTakeChain), with the sweep's own checks: no point may
// change a datacenter a K8ssandraCluster manages, and the sweep locks only a settled
// datacenter. A missing or refusing datacenter is waited for until the template's
// deadlines.prepare (counted from the sweep's creation); a busy one for as long as it takes,
// as a queued run waits. The sweep locks and records in one step: the lock patch is
// conditional on the version read, so what is recorded is what was locked.
func DecideTake(o HoldObserved) Take {
	sw := o.Sweep
	recorded := lending.OriginalsOf(sw.Status.Datacenter)
	in := lending.TakeInput{Holder: datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name}),
		Key: DatacenterKey(sw), DC: o.DC, Recorded: recorded, Started: recorded != nil, HolderAlive: o.HolderAlive, Next: o.Ahead,
		Now: o.Now, Deadline: sw.CreationTimestamp.Add(PrepareTimeout(sw)),
		GaveUp: fmt.Sprintf("gave up after the template's deadlines.prepare (%s), before any point ran", PrepareTimeout(sw))}
	admission := func(in *lending.TakeInput) (lending.Take, bool) {
		if reason, msg := k8ssandraRefusal(sw, in.DC); reason != "" {
			return in.Refuse(reason, msg)
		}
		return lending.Take{}, false
	}
	t := lending.NewTakeChain([]lending.Check{admission}, []lending.Check{settled}).Evaluate(in)
	switch t.Verdict {
	case lending.Refused:
		return Take{Fail: true, Status: metav1.ConditionFalse, Reason: t.Reason, Message: t.Message}
	case lending.LockLost:
		return Take{Lost: true, Status: metav1.ConditionFalse, Reason: t.Reason, Message: t.Message}
	case lending.Held:
		return Take{Held: true, Status: metav1.ConditionTrue, Reason: cbv1.ReasonLocked, Message: t.Message}
	case lending.Locking, lending.Recording:
		st := lending.Stored(in.Key, *t.Originals)
		return Take{Lock: t.Verdict == lending.Locking, Record: &st, Status: metav1.ConditionTrue, Reason: cbv1.ReasonLocked,
			Message: lending.RecordedMessage(in.Holder, in.Key, t.Originals.Size)}
	}
	return Take{Status: metav1.ConditionFalse, Reason: t.Reason, Message: t.Message, RequeueAfter: t.RequeueAfter}
}

// settled waits for cass-operator to finish a change before the sweep locks the datacenter:
// a run that just gave it back leaves its restore rolling through the nodes, and the first
// point's settings check would find them restarting.
func settled(in *lending.TakeInput) (lending.Take, bool) {
	if ready, why := datacenter.Ready(in.DC, in.DC.Generation); !ready {
		return lending.Take{Verdict: lending.Waiting, Reason: cbv1.ReasonDatacenterUpdating, Message: fmt.Sprintf(
			"CassandraDatacenter %s is changing (%s); the sweep locks it once cass-operator is done", in.Key, why)}, true
	}
	return lending.Take{}, false
}

// PlanRestore decides how to put the datacenter back to the originals in the sweep's status
// (lending.PlanRestore). Whatever differs goes back: while the sweep holds the lock, its runs
// fail on anyone else's change (drift), so what differs is the sweep's points'. refused is the
// message of a restore the apiserver refused, empty when none was.
func PlanRestore(sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter, pendingPods []string, expired bool, refused string) lending.Plan {
	return lending.PlanRestore(lending.Restore{Holder: datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name}),
		DC: dc, Originals: lending.OriginalsOf(sw.Status.Datacenter), PendingPods: pendingPods, Expired: expired, Refused: refused})
}
