package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// takeDatacenter locks the datacenter for the run if it is the run's turn, and records what
// the datacenter looked like before the run touched it.
func (r *BenchmarkRunReconciler) takeDatacenter(ctx context.Context, run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) (bool, error) {
	me := client.ObjectKeyFromObject(run)
	holder, locked := datacenter.LockHolder(dc)
	if !locked || holder != me {
		if locked {
			held, err := r.holderAlive(ctx, holder)
			if err != nil {
				return false, err
			}
			if held {
				r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy,
					fmt.Sprintf("CassandraDatacenter %s is in use by BenchmarkRun %s; this run starts when it is done", client.ObjectKeyFromObject(dc), holder))
				return false, nil
			}
		}
		first, position, err := r.queueHead(ctx, run, dc)
		if err != nil {
			return false, err
		}
		if first != me {
			r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy,
				fmt.Sprintf("CassandraDatacenter %s is next promised to BenchmarkRun %s; this run is number %d in the queue", client.ObjectKeyFromObject(dc), first, position))
			return false, nil
		}
		patch := client.MergeFromWithOptions(dc.DeepCopy(), client.MergeFromWithOptimisticLock{})
		if dc.Annotations == nil {
			dc.Annotations = map[string]string{}
		}
		dc.Annotations[cbv1.LockAnnotation] = datacenter.LockValue(me)
		if err := r.Patch(ctx, dc, patch); err != nil {
			// A conflict means another run or cass-operator wrote first: look again.
			return false, fmt.Errorf("locking CassandraDatacenter %s: %w", client.ObjectKeyFromObject(dc), err)
		}
	}
	if run.Status.StartTime != nil && run.Status.Datacenter != nil && run.Status.Datacenter.OriginalSize != nil {
		return true, nil
	}
	// Record the originals and stop: they are in status before anything changes, so a crash
	// between here and the patch cannot lose them.
	now := metav1.NewTime(r.Clock.Now())
	run.Status.StartTime = &now
	size := dc.Spec.Size
	st := &cbv1.DatacenterStatus{Name: dc.Name, Namespace: dc.Namespace, OriginalSize: &size, Size: size}
	if len(dc.Spec.Config) > 0 && string(dc.Spec.Config) != "null" {
		st.HadConfig = true
		st.OriginalConfig = &runtime.RawExtension{Raw: append([]byte(nil), dc.Spec.Config...)}
	}
	run.Status.Datacenter = st
	r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
		fmt.Sprintf("locked CassandraDatacenter %s and recorded its size %d and config", client.ObjectKeyFromObject(dc), size))
	return false, nil
}

// holderAlive tells whether the run named in a lock still exists. A lock whose run is gone
// (its finalizer was removed by hand) is stale and may be taken.
func (r *BenchmarkRunReconciler) holderAlive(ctx context.Context, holder client.ObjectKey) (bool, error) {
	other := &cbv1.BenchmarkRun{}
	err := r.Get(ctx, holder, other)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting lock holder %s: %w", holder, err)
	}
	return true, nil
}

// queueHead returns the run whose turn it is on the datacenter, and the given run's position.
// Only runs the datacenter admits are queued, so a refused run cannot block others.
func (r *BenchmarkRunReconciler) queueHead(ctx context.Context, run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) (client.ObjectKey, int, error) {
	var all cbv1.BenchmarkRunList
	if err := r.List(ctx, &all, client.MatchingFields{datacenterIndex: client.ObjectKeyFromObject(dc).String()}); err != nil {
		return client.ObjectKey{}, 0, fmt.Errorf("listing runs of CassandraDatacenter %s: %w", client.ObjectKeyFromObject(dc), err)
	}
	var waiting []cbv1.BenchmarkRun
	for _, other := range all.Items {
		if finished(&other) || !other.DeletionTimestamp.IsZero() || pendingOutcome(&other) != nil {
			continue
		}
		if ok, _, _ := datacenter.Allows(dc, other.Namespace); !ok {
			continue
		}
		waiting = append(waiting, other)
	}
	me := client.ObjectKeyFromObject(run)
	queue := datacenter.Queue(waiting)
	if len(queue) == 0 {
		// The cache has not seen this run yet; it is alone.
		return me, 1, nil
	}
	position := len(queue) + 1
	for i := range queue {
		if client.ObjectKeyFromObject(&queue[i]) == me {
			position = i + 1
		}
	}
	return client.ObjectKeyFromObject(&queue[0]), position, nil
}

// prepareDatacenter patches size and config once, then waits until cass-operator has applied
// them.
func (r *BenchmarkRunReconciler) prepareDatacenter(ctx context.Context, run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) (bool, ctrl.Result, error) {
	st := run.Status.Datacenter
	if invalid, msg := datacenter.Invalid(dc); invalid {
		r.fail(run, cbv1.ConditionDatacenterReady, reasonDatacenterInvalid,
			"cass-operator marked CassandraDatacenter "+client.ObjectKeyFromObject(dc).String()+" invalid: "+msg)
		return false, ctrl.Result{}, nil
	}
	if st.PatchedGeneration == 0 {
		wantSize := *st.OriginalSize
		tuning := run.Spec.Datacenter
		if tuning != nil && tuning.Size != nil {
			wantSize = *tuning.Size
		}
		var original json.RawMessage
		if st.OriginalConfig != nil {
			original = st.OriginalConfig.Raw
		}
		wantConfig := dc.Spec.Config
		if tuning != nil && tuning.Config != nil {
			merged, err := datacenter.MergeConfig(original, tuning.Config)
			if err != nil {
				r.fail(run, cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, err.Error())
				return false, ctrl.Result{}, nil
			}
			wantConfig = merged
		}
		sizeChanges := dc.Spec.Size != wantSize
		configChanges := !datacenter.SameJSON(dc.Spec.Config, wantConfig)
		if sizeChanges && datacenter.Resizing(dc) {
			r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
				"cass-operator is resizing the datacenter; its size can change once that is done")
			return false, r.untilPrepareDeadline(run), nil
		}
		if sizeChanges || configChanges {
			patch := client.MergeFromWithOptions(dc.DeepCopy(), client.MergeFromWithOptimisticLock{})
			dc.Spec.Size = wantSize
			dc.Spec.Config = wantConfig
			if err := r.Patch(ctx, dc, patch); err != nil {
				return false, ctrl.Result{}, fmt.Errorf("sizing and tuning CassandraDatacenter %s: %w", client.ObjectKeyFromObject(dc), err)
			}
			st.Changed = true
		}
		st.Size = wantSize
		st.PatchedGeneration = dc.Generation
		r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
			describeChange(st, sizeChanges, configChanges))
		return false, ctrl.Result{}, nil
	}
	if ready, why := datacenter.Ready(dc, st.PatchedGeneration); !ready {
		if r.prepareExpired(run, "the datacenter did not become ready: "+why) {
			return false, ctrl.Result{}, nil
		}
		r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
			"waiting for cass-operator: "+why)
		return false, r.untilPrepareDeadline(run), nil
	}
	r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady,
		fmt.Sprintf("CassandraDatacenter %s is ready with %d nodes", client.ObjectKeyFromObject(dc), st.Size))
	return true, ctrl.Result{}, nil
}

func describeChange(st *cbv1.DatacenterStatus, size, config bool) string {
	var parts []string
	if size {
		parts = append(parts, fmt.Sprintf("size %d -> %d", *st.OriginalSize, st.Size))
	}
	if config {
		parts = append(parts, "config merged")
	}
	if len(parts) == 0 {
		return "the datacenter already matches the run; waiting for it to be ready"
	}
	return "patched the datacenter (" + strings.Join(parts, ", ") + "); waiting for cass-operator to apply it"
}

// prepareExpired fails the run if the prepare deadline has passed.
func (r *BenchmarkRunReconciler) prepareExpired(run *cbv1.BenchmarkRun, why string) bool {
	if r.Clock.Now().Before(prepareDeadline(run)) {
		return false
	}
	r.fail(run, cbv1.ConditionDatacenterReady, cbv1.ReasonPrepareDeadlineExpired,
		fmt.Sprintf("%s within deadlines.prepare (%s)", why, prepareTimeout(run)))
	return true
}

func (r *BenchmarkRunReconciler) untilPrepareDeadline(run *cbv1.BenchmarkRun) ctrl.Result {
	return ctrl.Result{RequeueAfter: max(prepareDeadline(run).Sub(r.Clock.Now()), 0) + 1}
}

// release restores the datacenter's recorded size and config (unless the run keeps its
// changes) and removes the lock. It reports done=false while it must wait.
func (r *BenchmarkRunReconciler) release(ctx context.Context, run *cbv1.BenchmarkRun) (bool, error) {
	key := datacenter.Key(run)
	dc := &cassdcapi.CassandraDatacenter{}
	err := r.Get(ctx, key, dc)
	if apierrors.IsNotFound(err) {
		r.restored(run, cbv1.ReasonNothingToRestore, "the datacenter no longer exists")
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting CassandraDatacenter %s: %w", key, err)
	}
	st := run.Status.Datacenter
	holder, locked := datacenter.LockHolder(dc)
	if !locked || holder != client.ObjectKeyFromObject(run) {
		r.releasedEarlier(run, dc, st)
		return true, nil
	}
	patch := client.MergeFromWithOptions(dc.DeepCopy(), client.MergeFromWithOptimisticLock{})
	reason, msg := cbv1.ReasonNothingToRestore, "the run did not change the datacenter; lock released"
	if st != nil && st.OriginalSize != nil && run.Spec.Datacenter != nil && run.Spec.Datacenter.KeepChanges {
		reason, msg = cbv1.ReasonKeptChanges, "spec.datacenter.keepChanges is set: the datacenter keeps the run's size and config; lock released"
	} else if st != nil && st.OriginalSize != nil && (st.Changed || st.PatchedGeneration == 0) {
		// PatchedGeneration 0 with the lock held means a crash may have come between the
		// patch and recording it, so restore anyway: restoring an unchanged spec is a no-op.
		if dc.Spec.Size != *st.OriginalSize && datacenter.Resizing(dc) {
			r.condition(run, cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonRestoring,
				"waiting for cass-operator to finish resizing before restoring the original size")
			return false, nil
		}
		dc.Spec.Size = *st.OriginalSize
		dc.Spec.Config = nil
		if st.HadConfig && st.OriginalConfig != nil {
			dc.Spec.Config = append(json.RawMessage(nil), st.OriginalConfig.Raw...)
		}
		reason, msg = cbv1.ReasonRestored, fmt.Sprintf("restored size %d and the original config; lock released", *st.OriginalSize)
	}
	delete(dc.Annotations, cbv1.LockAnnotation)
	if err := r.Patch(ctx, dc, patch); err != nil {
		return false, fmt.Errorf("restoring CassandraDatacenter %s: %w", key, err)
	}
	if st != nil && reason == cbv1.ReasonRestored {
		st.RestoredGeneration = dc.Generation
	}
	r.restored(run, reason, msg)
	return true, nil
}

// releasedEarlier reports on a datacenter the run no longer holds: either it never held it,
// or an earlier pass restored and unlocked it but its status was not stored. What the
// datacenter looks like now tells which; a datacenter that is neither unchanged nor restored
// is not touched, since another run may hold it by now.
func (r *BenchmarkRunReconciler) releasedEarlier(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, st *cbv1.DatacenterStatus) {
	if st == nil || !st.Changed || st.OriginalSize == nil {
		r.restored(run, cbv1.ReasonNothingToRestore, "the run did not change the datacenter")
		return
	}
	if run.Spec.Datacenter != nil && run.Spec.Datacenter.KeepChanges {
		r.restored(run, cbv1.ReasonKeptChanges, "spec.datacenter.keepChanges is set: the datacenter keeps the run's size and config")
		return
	}
	var original json.RawMessage
	if st.HadConfig && st.OriginalConfig != nil {
		original = st.OriginalConfig.Raw
	}
	if dc.Spec.Size == *st.OriginalSize && datacenter.SameJSON(dc.Spec.Config, original) {
		r.restored(run, cbv1.ReasonRestored, fmt.Sprintf("restored size %d and the original config; lock released", *st.OriginalSize))
		return
	}
	r.condition(run, cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, reasonLockLost,
		fmt.Sprintf("the lock on CassandraDatacenter %s was removed before the run restored it: it has size %d (originally %d) "+
			"and may keep the run's config; restore it by hand from status.datacenter.originalSize and originalConfig",
			client.ObjectKeyFromObject(dc), dc.Spec.Size, *st.OriginalSize))
}

// reasonLockLost: someone removed the run's lock before the run could restore the datacenter.
const reasonLockLost = "LockLost"

func (r *BenchmarkRunReconciler) restored(run *cbv1.BenchmarkRun, reason, msg string) {
	r.condition(run, cbv1.ConditionDatacenterRestored, metav1.ConditionTrue, reason, msg)
}

// target resolves where and as whom the pods connect.
func (r *BenchmarkRunReconciler) target(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) (jobs.Target, error) {
	t := jobs.Target{
		Image:               r.Image,
		Host:                dc.GetDatacenterServiceName() + "." + dc.Namespace + ".svc",
		Port:                9042,
		CassandraDatacenter: dc.DatacenterName(),
	}
	if run.Spec.Writers.Image != "" {
		t.Image = run.Spec.Writers.Image
	}
	conn := run.Spec.Connection
	if conn != nil && conn.Service != "" {
		t.Host = conn.Service
	}
	if conn != nil && conn.Port != nil {
		t.Port = *conn.Port
	}
	switch {
	case conn != nil && conn.CredentialsSecretRef != nil:
		t.CredentialsSecret = conn.CredentialsSecretRef.Name
	case dc.Namespace == run.Namespace:
		t.CredentialsSecret = dc.GetSuperuserSecretNamespacedName().Name
	default:
		return t, fmt.Errorf("the datacenter is in namespace %s and its superuser secret cannot be used from namespace %s: "+
			"create a secret with keys username and password in %s and set spec.connection.credentialsSecretRef",
			dc.Namespace, run.Namespace, run.Namespace)
	}
	if t.Image == "" {
		return t, fmt.Errorf("no writer image: set spec.writers.image or start the manager with --writer-image")
	}
	run.Status.Resolved = &cbv1.ResolvedSettings{
		Image: t.Image, Service: t.Host, Port: t.Port, CredentialsSecret: t.CredentialsSecret, Namespace: run.Namespace,
	}
	return t, nil
}
