package controllers

import (
	"context"
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/sweep"
)

// A sweep with restore atEnd holds its datacenter: it takes it (observeHold, sweep.DecideTake,
// performTake) and gives it back (internal/lending), reading and writing what those pure
// functions decide from and on.

// observeHold reads the sweep's datacenter, whether the holder of its lock (if another)
// still needs it, and the run queued ahead of the sweep: what sweep.DecideTake decides from.
func (r *BenchmarkSweepReconciler) observeHold(ctx context.Context, sw *cbv1.BenchmarkSweep) (sweep.HoldObserved, error) {
	o := sweep.HoldObserved{Sweep: sw, Now: r.Clock.Now()}
	dc, err := r.datacenter(ctx, sw)
	if err != nil {
		return o, err
	}
	o.DC = dc
	if dc != nil {
		me := datacenter.SweepHolder(client.ObjectKeyFromObject(sw))
		if holder, locked := datacenter.LockHolder(dc); locked && holder != me {
			if o.HolderAlive, err = holderAlive(ctx, r.Client, holder); err != nil {
				return o, err
			}
		}
		if o.Ahead, err = r.ahead(ctx, sw, dc); err != nil {
			return o, err
		}
	}
	return o, nil
}

// performTake locks the datacenter and records its originals when sweep.DecideTake said so.
func (r *BenchmarkSweepReconciler) performTake(ctx context.Context, sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter, t sweep.Take) error {
	if t.Lock {
		c := lending.LockChange(datacenter.SweepHolder(client.ObjectKeyFromObject(sw)), cbv1.ConditionDatacenterLocked)
		if _, err := patchDatacenter(ctx, r.Client, c, dc.DeepCopy()); err != nil {
			return err
		}
	}
	if t.Record != nil {
		sw.Status.Datacenter = t.Record
	}
	if !t.Fail {
		r.condition(sw, cbv1.ConditionDatacenterLocked, t.Status, t.Reason, t.Message)
	}
	return nil
}

// datacenter reads the sweep's datacenter; nil when it does not exist.
func (r *BenchmarkSweepReconciler) datacenter(ctx context.Context, sw *cbv1.BenchmarkSweep) (*cassdcapi.CassandraDatacenter, error) {
	key := sweep.DatacenterKey(sw)
	dc := &cassdcapi.CassandraDatacenter{}
	if err := r.Get(ctx, key, dc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("getting CassandraDatacenter %s: %w", key, err)
	}
	return dc, nil
}

// ahead names the oldest run, created before the sweep, that waits for the datacenter and
// that the datacenter admits: it goes first, as it would in the runs' queue.
func (r *BenchmarkSweepReconciler) ahead(ctx context.Context, sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter) (types.NamespacedName, error) {
	all, err := runsOf(ctx, r.Client, dc)
	if err != nil {
		return types.NamespacedName{}, err
	}
	// Only runs that waited before the sweep was created, and are not its own.
	var before []cbv1.BenchmarkRun
	for _, run := range all {
		if run.Status.StartTime == nil && !metav1.IsControlledBy(&run, sw) && run.CreationTimestamp.Before(&sw.CreationTimestamp) {
			before = append(before, run)
		}
	}
	if q := lending.Queue(dc, before, workDone); len(q) > 0 {
		return client.ObjectKeyFromObject(&q[0]), nil
	}
	return types.NamespacedName{}, nil
}

// giveBack puts the datacenter back to the originals in status and releases the lock. It
// returns true once that is done or given up on (with the reason in DatacenterRestored), and
// otherwise how soon to look again; the deadline is the template's deadlines.prepare from
// since.
func (r *BenchmarkSweepReconciler) giveBack(ctx context.Context, sw *cbv1.BenchmarkSweep, since time.Time) (bool, time.Duration, error) {
	if lending.Final(meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionDatacenterRestored)) {
		return true, 0, nil
	}
	// The pass that restored may be newer than the cached sweep this pass read, while the
	// datacenter it restored is already in the cache: planned again, the restore would find
	// nothing to do and overwrite what was done. The sweep as stored says whether it is done.
	if r.APIReader != nil {
		stored := &cbv1.BenchmarkSweep{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(sw), stored); err != nil {
			return false, 0, client.IgnoreNotFound(err)
		}
		if lending.Final(meta.FindStatusCondition(stored.Status.Conditions, cbv1.ConditionDatacenterRestored)) {
			sw.Status.Conditions, sw.Status.Datacenter = stored.Status.Conditions, stored.Status.Datacenter
			return true, 0, nil
		}
	}
	dc, err := r.datacenter(ctx, sw)
	if err != nil {
		return false, 0, err
	}
	var pending []string
	if dc != nil && r.APIReader != nil && datacenter.Resizing(dc) {
		var pods corev1.PodList
		if err := r.APIReader.List(ctx, &pods, client.InNamespace(dc.Namespace), client.MatchingLabels(dc.GetDatacenterLabels())); err != nil {
			return false, 0, fmt.Errorf("listing the pods of CassandraDatacenter %s: %w", client.ObjectKeyFromObject(dc), err)
		}
		pending = notReady(pods.Items)
	}
	deadline := since.Add(sweep.PrepareTimeout(sw))
	now := r.Clock.Now()
	refused := ""
	if c := meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionDatacenterRestored); c != nil && c.Reason == cbv1.ReasonRefused {
		refused = c.Message
	}
	plan := sweep.PlanRestore(sw, dc, pending, !now.Before(deadline), refused)
	if c := plan.Change; c != nil {
		generation, err := patchDatacenter(ctx, r.Client, c, dc.DeepCopy())
		switch {
		case terminal(err):
			// The apiserver refused the restore for good: the next pass releases the lock.
			plan = lending.Plan{Status: metav1.ConditionFalse, Reason: cbv1.ReasonRefused, Message: lending.RefusedMessage(
				datacenter.SweepHolder(client.ObjectKeyFromObject(sw)), c.What+" CassandraDatacenter "+client.ObjectKeyFromObject(dc).String(), err, true)}
		case err != nil:
			return false, 0, err
		case sw.Status.Datacenter != nil && (c.Size != nil || c.SetConfig):
			sw.Status.Datacenter.RestoredGeneration = generation
		}
	}
	r.condition(sw, cbv1.ConditionDatacenterRestored, plan.Status, plan.Reason, plan.Message)
	if !plan.Done {
		return false, max(deadline.Sub(now), 0) + time.Second, nil
	}
	r.condition(sw, cbv1.ConditionDatacenterLocked, metav1.ConditionFalse, cbv1.ReasonReleased,
		"the sweep gave the datacenter back: "+plan.Message)
	return true, 0, nil
}

// restoreSince is when giving back began, which its deadline counts from: when the
// DatacenterRestored condition first appeared (it stays False until the end), or now.
func (r *BenchmarkSweepReconciler) restoreSince(sw *cbv1.BenchmarkSweep) time.Time {
	if c := meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionDatacenterRestored); c != nil {
		return c.LastTransitionTime.Time
	}
	return r.Clock.Now()
}

// lost ends a sweep whose lock someone removed: its running point fails on its own (LockLost);
// once no run is left the sweep puts back what it can and fails.
func (r *BenchmarkSweepReconciler) lost(ctx context.Context, sw *cbv1.BenchmarkSweep, o sweep.Observed, t sweep.Take) (time.Duration, error) {
	tabulate(sw, o, sweep.Decision{})
	for _, run := range o.Runs {
		if !lending.Finished(run) {
			return 0, nil
		}
	}
	done, after, err := r.giveBack(ctx, sw, r.restoreSince(sw))
	if err != nil || !done {
		return after, err
	}
	r.condition(sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonLockLost, t.Message+"; the sweep created no further runs; status.table has what was measured")
	return 0, nil
}
