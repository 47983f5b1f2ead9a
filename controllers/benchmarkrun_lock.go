package controllers

import (
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
)

// The lock stage: take the datacenter through the take chain every holder runs
// (lending.NewTakeChain), with the run's own admission checks, and record its originals
// before anything changes them.

// lock takes the datacenter unless the run holds it (or its sweep lends it), then records its
// originals once. It is done when the run holds the datacenter and its originals are stored.
func (d *decider) lock(jobs.Target) stageResult {
	run := d.run
	admission := []lending.Check{
		func(in *lending.TakeInput) (lending.Take, bool) {
			if msg := datacenter.CrossNamespaceDenied(run, in.DC); msg != "" {
				return in.Refuse(cbv1.ReasonSettingNotAllowed, msg)
			}
			return lending.Take{}, false
		},
		func(in *lending.TakeInput) (lending.Take, bool) {
			if reason, msg := datacenter.K8ssandraManaged(in.DC, run.Spec.Datacenter, "the run"); reason != "" {
				return in.Refuse(reason, msg)
			}
			return lending.Take{}, false
		},
		func(in *lending.TakeInput) (lending.Take, bool) {
			if len(run.Spec.Schema.Replication.Datacenters) == 0 {
				return lending.Take{}, false
			}
			if msg := datacenter.ReplicationOutsideCluster(run, in.DC.Spec.ClusterName, d.o.clusterDCs); msg != "" {
				return in.Refuse(cbv1.ReasonInvalidSpec, msg)
			}
			return lending.Take{}, false
		},
		func(in *lending.TakeInput) (lending.Take, bool) {
			if reason, msg := datacenter.Unsuitable(run, in.DC); reason != "" {
				return in.Refuse(reason, msg)
			}
			return lending.Take{}, false
		},
	}
	chain := lending.NewTakeChain(admission, nil)
	if len(d.o.several) > 0 {
		return d.lockSeveral(chain)
	}
	return d.taken(chain.Evaluate(d.takeInput()))
}

// takeInput is what the take chain reads of this pass's observation.
func (d *decider) takeInput() lending.TakeInput {
	run, o := d.run, d.o
	// A run across several held one of them in an earlier pass once it recorded its
	// originals: its start says nothing of the datacenters it has not taken yet.
	started := run.Status.StartTime != nil && (o.key.Name == "" || run.Status.Datacenter != nil)
	in := lending.TakeInput{Holder: datacenter.RunHolder(d.me()), Key: d.key(), DC: o.dc,
		Started: started, HolderAlive: o.holderAlive, Next: o.queueHead, Position: o.queuePosition,
		Now: o.now, Deadline: findDeadline(run), GaveUp: fmt.Sprintf("gave up after deadlines.prepare (%s)", prepareTimeout(run))}
	if st := run.Status.Datacenter; run.Status.StartTime != nil && st != nil {
		in.Recorded = lending.OriginalsOf(&st.HeldDatacenter)
	}
	if o.dc != nil && lentBy(o.lender, o.dc) {
		in.Lent = lending.OriginalsOf(o.lender.Status.Datacenter)
	}
	return in
}

// taken is the lock stage's result for the chain's verdict: the run's DatacenterReady
// condition, the lock to put on, or the originals to record.
func (d *decider) taken(t lending.Take) stageResult {
	var r stageResult
	switch t.Verdict {
	case lending.Held:
		return complete
	case lending.Refused, lending.LockLost:
		r.fail(cbv1.ConditionDatacenterReady, t.Reason, t.Message)
		return r
	case lending.Locking:
		r.dc = lending.LockChange(datacenter.RunHolder(d.me()), cbv1.ConditionDatacenterReady)
	case lending.Recording:
		now, held, size := metav1.NewTime(d.o.now), lending.Stored(d.key(), *t.Originals), t.Originals.Size
		r.record(func(st *cbv1.BenchmarkRunStatus) {
			if st.StartTime == nil {
				st.StartTime = &now
			}
			st.Datacenter = &cbv1.DatacenterStatus{HeldDatacenter: held, Size: size}
		})
	}
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, t.Reason, t.Message)
	if t.RequeueAfter > 0 {
		r.requeue(t.RequeueAfter - time.Second)
	}
	return r
}

// lentBy tells whether a run's sweep holds the datacenter for it: the lock is the sweep's and
// the sweep has recorded the originals the run's target is merged into.
func lentBy(sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter) bool {
	if sw == nil || lending.OriginalsOf(sw.Status.Datacenter) == nil {
		return false
	}
	holder, locked := datacenter.LockHolder(dc)
	return locked && holder == datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name})
}

// clusterMismatch names what keeps the datacenters of a run across several from serving it
// together once they all exist: one of another cluster, or a replication map naming a
// datacenter outside theirs.
func clusterMismatch(run *cbv1.BenchmarkRun, o observation) string {
	if msg := datacenter.OtherCluster(run, o.named); msg != "" {
		return msg
	}
	if len(run.Spec.Schema.Replication.Datacenters) == 0 || len(o.named) == 0 || o.named[0] == nil {
		return ""
	}
	return datacenter.ReplicationOutsideCluster(run, o.named[0].Spec.ClusterName, o.clusterDCs)
}
