// Package controllers holds the BenchmarkRun reconciler: orchestration and I/O only; the
// decisions live in internal/ and in benchmarkrun_status.go.
package controllers

import (
	"context"
	"fmt"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// datacenterIndex indexes runs by the namespace/name of the datacenter they refer to.
const datacenterIndex = "spec.datacenterRef.key"

// DefaultProgressInterval is how often a running run's progress is written to status.
const DefaultProgressInterval = 10 * time.Second

// BenchmarkRunReconciler takes a BenchmarkRun from applied to Succeeded: it locks, sizes and
// tunes the datacenter, runs setup and writer Jobs, collects results and gives the datacenter
// back.
type BenchmarkRunReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
	// Image runs setup and writer pods unless a run names its own.
	Image string
	// ProgressInterval between progress updates while writers run.
	ProgressInterval time.Duration
}

// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns/finalizers,verbs=update
// +kubebuilder:rbac:groups=cassandra.datastax.com,resources=cassandradatacenters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves one run forward by as many steps as it can take now.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	run := &cbv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := run.DeepCopy()
	defer func() {
		run.Status.ObservedGeneration = run.Generation
		run.Status.Phase = phase(run)
		if equality.Semantic.DeepEqual(before.Status, run.Status) {
			return
		}
		// Diff status only: the finalizer patch may have moved the metadata since `before`.
		// The patch is conditional on the version read, so a pass that worked from a stale
		// cache cannot overwrite a newer status; the newer version's event brings the run
		// back with fresh data.
		base := run.DeepCopy()
		base.Status = before.Status
		perr := r.Status().Patch(ctx, run, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
		if perr != nil && !apierrors.IsNotFound(perr) && !apierrors.IsConflict(perr) {
			result, err = ctrl.Result{}, fmt.Errorf("writing status: %w", perr)
		}
	}()

	if !run.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, run)
	}
	if finished(run) {
		return ctrl.Result{}, r.removeFinalizer(ctx, run)
	}
	if o := pendingOutcome(run); o != nil {
		return r.giveBack(ctx, run, o)
	}
	if !controllerutil.ContainsFinalizer(run, cbv1.Finalizer) {
		// The finalizer goes on before the run can touch the datacenter, so that deleting the
		// run can always put the datacenter back.
		patch := client.MergeFrom(run.DeepCopy())
		controllerutil.AddFinalizer(run, cbv1.Finalizer)
		if err := r.Patch(ctx, run, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer: %w", err)
		}
	}
	return r.advance(ctx, run)
}

// advance runs the ordered phases of a run; each returns done=false to stop this pass.
func (r *BenchmarkRunReconciler) advance(ctx context.Context, run *cbv1.BenchmarkRun) (ctrl.Result, error) {
	dc, res, err := r.findDatacenter(ctx, run)
	if dc == nil || err != nil {
		return res, err
	}
	if done, err := r.takeDatacenter(ctx, run, dc); !done || err != nil {
		return ctrl.Result{}, err
	}
	target, err := r.target(run, dc)
	if err != nil {
		r.fail(run, cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, nil
	}
	if done, res, err := r.preflight(ctx, run, target); !done || err != nil {
		return res, err
	}
	if done, res, err := r.prepareDatacenter(ctx, run, dc); !done || err != nil {
		return res, err
	}
	target.Nodes = run.Status.Datacenter.Size
	if done, res, err := r.setUp(ctx, run, target); !done || err != nil {
		return res, err
	}
	return r.runWriters(ctx, run, target)
}

// findDatacenter gets the run's datacenter and checks that it admits the run. It returns a nil
// datacenter when the run must wait.
func (r *BenchmarkRunReconciler) findDatacenter(ctx context.Context, run *cbv1.BenchmarkRun) (*cassdcapi.CassandraDatacenter, ctrl.Result, error) {
	key := datacenter.Key(run)
	dc := &cassdcapi.CassandraDatacenter{}
	err := r.Get(ctx, key, dc)
	if apierrors.IsNotFound(err) {
		return nil, r.waitToFind(run, cbv1.ReasonDatacenterNotFound,
			fmt.Sprintf("CassandraDatacenter %s not found; waiting for it to be created", key)), nil
	}
	if err != nil {
		return nil, ctrl.Result{}, fmt.Errorf("getting CassandraDatacenter %s: %w", key, err)
	}
	if run.Status.StartTime == nil {
		// Admission is checked until the run holds the datacenter; withdrawing the opt-in
		// mid-run does not strand a tuned datacenter.
		if ok, reason, msg := datacenter.Allows(dc, run.Namespace); !ok {
			return nil, r.waitToFind(run, reason, msg), nil
		}
	}
	return dc, ctrl.Result{}, nil
}

// waitToFind records why the run cannot start yet and fails it once the deadline passes.
func (r *BenchmarkRunReconciler) waitToFind(run *cbv1.BenchmarkRun, reason, msg string) ctrl.Result {
	deadline := findDeadline(run)
	now := r.Clock.Now()
	if !now.Before(deadline) {
		r.fail(run, cbv1.ConditionDatacenterReady, cbv1.ReasonPrepareDeadlineExpired,
			fmt.Sprintf("%s; gave up after deadlines.prepare (%s)", msg, prepareTimeout(run)))
		// The status write this causes brings the run back to give up.
		return ctrl.Result{}
	}
	r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, reason,
		fmt.Sprintf("%s (until %s)", msg, deadline.UTC().Format(time.RFC3339)))
	return ctrl.Result{RequeueAfter: deadline.Sub(now)}
}

// fail marks a stage failed; the next pass gives the datacenter back and ends the run.
func (r *BenchmarkRunReconciler) fail(run *cbv1.BenchmarkRun, conditionType, reason, msg string) {
	r.condition(run, conditionType, metav1.ConditionFalse, reason, msg)
}

// condition sets a condition and emits an event when its status or reason changed.
func (r *BenchmarkRunReconciler) condition(run *cbv1.BenchmarkRun, t string, status metav1.ConditionStatus, reason, msg string) {
	if setCondition(run, t, status, reason, msg) {
		kind := corev1.EventTypeNormal
		if status == metav1.ConditionFalse && failedReasons[reason] {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(run, nil, kind, reason, t, "%s", msg)
	}
}

// finalize gives the datacenter back for a run being deleted, then lets it go.
func (r *BenchmarkRunReconciler) finalize(ctx context.Context, run *cbv1.BenchmarkRun) error {
	if !controllerutil.ContainsFinalizer(run, cbv1.Finalizer) {
		return nil
	}
	done, err := r.release(ctx, run)
	if err != nil || !done {
		return err
	}
	return r.removeFinalizer(ctx, run)
}

func (r *BenchmarkRunReconciler) removeFinalizer(ctx context.Context, run *cbv1.BenchmarkRun) error {
	if !controllerutil.ContainsFinalizer(run, cbv1.Finalizer) {
		return nil
	}
	patch := client.MergeFrom(run.DeepCopy())
	controllerutil.RemoveFinalizer(run, cbv1.Finalizer)
	if err := r.Patch(ctx, run, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing finalizer: %w", err)
	}
	return nil
}

// giveBack ends a run whose work is over: restore and unlock the datacenter, then set the
// final condition. Results already in status stay there.
func (r *BenchmarkRunReconciler) giveBack(ctx context.Context, run *cbv1.BenchmarkRun, o *outcome) (ctrl.Result, error) {
	done, err := r.release(ctx, run)
	if err != nil || !done {
		return ctrl.Result{}, err
	}
	if run.Status.CompletionTime == nil {
		now := metav1.NewTime(r.Clock.Now())
		run.Status.CompletionTime = &now
	}
	status, reason := metav1.ConditionTrue, cbv1.ReasonSucceeded
	if !o.succeeded {
		status, reason = metav1.ConditionFalse, o.reason
	}
	r.condition(run, cbv1.ConditionSucceeded, status, reason, o.message)
	run.Status.Progress = nil
	// The finalizer goes in the next pass (finished), once this status is stored: patching it
	// now would load the stored status into run and lose what this pass decided, and the next
	// pass would find the lock gone and report that the run never held the datacenter.
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler: it owns its Jobs and watches datacenters through
// an index of the runs that refer to them.
func (r *BenchmarkRunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.ProgressInterval == 0 {
		r.ProgressInterval = DefaultProgressInterval
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &cbv1.BenchmarkRun{}, datacenterIndex,
		func(o client.Object) []string {
			return []string{datacenter.Key(o.(*cbv1.BenchmarkRun)).String()}
		}); err != nil {
		return fmt.Errorf("indexing runs by datacenter: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&cbv1.BenchmarkRun{}).
		Owns(&batchv1.Job{}).
		Watches(&cassdcapi.CassandraDatacenter{}, handler.EnqueueRequestsFromMapFunc(r.runsOfDatacenter)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(runOfPod)).
		Complete(r)
}

// runsOfDatacenter maps a datacenter event to the runs that refer to it.
func (r *BenchmarkRunReconciler) runsOfDatacenter(ctx context.Context, o client.Object) []reconcile.Request {
	var runs cbv1.BenchmarkRunList
	key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}.String()
	if err := r.List(ctx, &runs, client.MatchingFields{datacenterIndex: key}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing runs of datacenter", "datacenter", klog.KObj(o))
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(runs.Items))
	for _, run := range runs.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&run)})
	}
	return reqs
}

// runOfPod maps a setup or writer pod to its run, so a writer that finishes is collected
// without waiting for its Job's status to change.
func runOfPod(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[cbv1.RunLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}
