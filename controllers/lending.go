package controllers

import (
	"context"
	"fmt"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/sweep"
)

// The I/O both holders of a datacenter share: the decisions are internal/lending's, these
// read and write what they decide from and on.

// terminal tells whether the apiserver refused a write for good: invalid (422), forbidden by
// RBAC, a webhook or a policy engine (403), or malformed (400). Retrying cannot help.
func terminal(err error) bool {
	return err != nil && (apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err))
}

// patchDatacenter applies a change of a run or a sweep to the datacenter, conditional on the
// version it was decided from, and returns the generation it produced.
func patchDatacenter(ctx context.Context, w client.Writer, c *lending.Change, dc *cassdcapi.CassandraDatacenter) (int64, error) {
	key := client.ObjectKeyFromObject(dc)
	patch := client.MergeFromWithOptions(dc.DeepCopy(), client.MergeFromWithOptimisticLock{})
	lending.Apply(c, dc)
	if err := w.Patch(ctx, dc, patch); err != nil {
		// A conflict means someone wrote since this pass read: the next pass looks again.
		return 0, fmt.Errorf("%s CassandraDatacenter %s: %w", c.What, key, err)
	}
	return dc.Generation, nil
}

// holderAlive tells whether the run or sweep named in a lock still needs it. A lock whose
// holder is gone (its finalizer was removed by hand), or finished (a lock annotation put back
// by GitOps or a backup), is stale and may be taken.
func holderAlive(ctx context.Context, c client.Reader, holder datacenter.Holder) (bool, error) {
	if holder.Sweep {
		return alive(ctx, c, holder, &cbv1.BenchmarkSweep{}, func(sw *cbv1.BenchmarkSweep) bool { return !sweep.GaveBack(sw) })
	}
	return alive(ctx, c, holder, &cbv1.BenchmarkRun{}, func(run *cbv1.BenchmarkRun) bool { return !lending.Finished(run) })
}

// alive reads the holder into obj and tells whether it exists and needs the datacenter.
func alive[T client.Object](ctx context.Context, c client.Reader, holder datacenter.Holder, obj T, needs func(T) bool) (bool, error) {
	err := c.Get(ctx, holder.NamespacedName, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting lock holder %s: %w", holder, err)
	}
	return needs(obj), nil
}

// indexedBy maps a datacenter event to the holders of list's kind that the index files under
// the datacenter's key: the runs that refer to it, the sweeps that hold it.
func indexedBy(c client.Reader, list client.ObjectList, index string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, client.MatchingFields{index: client.ObjectKeyFromObject(o).String()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "listing what the datacenter's events concern", "datacenter", klog.KObj(o), "index", index)
			return nil
		}
		var reqs []reconcile.Request
		_ = meta.EachListItem(l, func(item runtime.Object) error {
			if obj, ok := item.(client.Object); ok {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			}
			return nil
		})
		return reqs
	}
}

// runsOf lists the runs that refer to the datacenter, through the cache's index.
func runsOf(ctx context.Context, c client.Reader, dc *cassdcapi.CassandraDatacenter) ([]cbv1.BenchmarkRun, error) {
	var all cbv1.BenchmarkRunList
	if err := c.List(ctx, &all, client.MatchingFields{datacenterIndex: client.ObjectKeyFromObject(dc).String()}); err != nil {
		return nil, fmt.Errorf("listing runs of CassandraDatacenter %s: %w", client.ObjectKeyFromObject(dc), err)
	}
	return all.Items, nil
}

// workDone tells whether a run is done with its work and only gives its datacenter back: it
// waits in no queue.
func workDone(run *cbv1.BenchmarkRun) bool { return pendingOutcome(run) != nil }
