package controllers

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/sweep"
)

// BenchmarkSweepReconciler runs a sweep's points as child BenchmarkRuns, one at a time in point
// order, and tabulates their results. The runs themselves are the BenchmarkRun controller's.
type BenchmarkSweepReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// Dry-run creates need create on benchmarkruns; an owner reference with blockOwnerDeletion
// needs update on the owner's finalizers where OwnerReferencesPermissionEnforcement is on.

// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarksweeps,verbs=get;list;watch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarksweeps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarksweeps/finalizers,verbs=update
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns,verbs=get;list;watch;create

// Reconcile validates every point once, then creates the next run when the previous one has
// finished, and rewrites the table from the runs.
func (r *BenchmarkSweepReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	sw := &cbv1.BenchmarkSweep{}
	if err := r.Get(ctx, req.NamespacedName, sw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !sw.DeletionTimestamp.IsZero() || sweepFinished(sw) {
		// Owner references take the runs away with the sweep; a finished sweep's table is final,
		// even if its runs are deleted later.
		return ctrl.Result{}, nil
	}
	before := sw.DeepCopy()
	defer func() {
		sw.Status.ObservedGeneration = sw.Generation
		sw.Status.Phase = sweepPhase(sw)
		progress := "validating the points"
		if sw.Status.Progress != "" {
			progress = "points " + sw.Status.Progress
		}
		conditions.Kstatus(&sw.Status.Conditions, sw.Generation, string(sw.Status.Phase), progress)
		if equality.Semantic.DeepEqual(before.Status, sw.Status) {
			return
		}
		if perr := r.Status().Patch(ctx, sw, client.MergeFrom(before)); perr != nil && !apierrors.IsNotFound(perr) {
			result, err = ctrl.Result{}, fmt.Errorf("writing status: %w", perr)
		}
	}()

	points, err := sweep.Expand(&sw.Spec)
	if err != nil {
		return r.invalid(sw, err.Error())
	}
	sw.Status.Points = int32(len(points))
	if !meta.IsStatusConditionTrue(sw.Status.Conditions, cbv1.ConditionValid) {
		problem, err := r.validate(ctx, sw, points)
		if err != nil {
			return ctrl.Result{}, err
		}
		if problem != "" {
			return r.invalid(sw, problem)
		}
		r.condition(sw, cbv1.ConditionValid, metav1.ConditionTrue, cbv1.ReasonPointsValid,
			fmt.Sprintf("all %d points make BenchmarkRuns the apiserver accepts", len(points)))
	}

	runs, err := r.children(ctx, sw)
	if err != nil {
		return ctrl.Result{}, err
	}
	o := sweep.Observed{Sweep: sw, Points: points, Runs: runs}
	d := sweep.Decide(o)
	if d.Create != nil {
		run, err := r.create(ctx, sw, points[d.Create.Point], *d.Create)
		if err != nil {
			return ctrl.Result{}, err
		}
		runs[run.Name] = run
	}

	table := sw.Status.Table
	tabulate(sw, o, d)
	for _, e := range pointEvents(sw.Spec.Axes, table, sw.Status.Table) {
		kind := corev1.EventTypeNormal
		if e.warning {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(sw, nil, kind, e.reason, "RunPoint", "%s", e.message)
	}
	if d.Done {
		status, reason, msg := sweepOutcome(sw, d)
		r.condition(sw, cbv1.ConditionSucceeded, status, reason, msg)
	}
	return ctrl.Result{}, nil
}

// invalid ends a sweep that can never run: the spec is immutable, so retrying cannot help.
func (r *BenchmarkSweepReconciler) invalid(sw *cbv1.BenchmarkSweep, problem string) (ctrl.Result, error) {
	r.condition(sw, cbv1.ConditionValid, metav1.ConditionFalse, cbv1.ReasonInvalidPoint, problem)
	r.condition(sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonInvalidPoint,
		"no run was created because a point is invalid: "+problem)
	return ctrl.Result{}, reconcile.TerminalError(errors.New(problem))
}

// validate builds every point's run and has the apiserver check it with a dry-run create, so
// ranges, enums and CEL rules are the CRD's own. It returns what is wrong with the first
// invalid point, or an error when the apiserver could not answer.
func (r *BenchmarkSweepReconciler) validate(ctx context.Context, sw *cbv1.BenchmarkSweep, points []sweep.Point) (string, error) {
	for _, p := range points {
		spec, err := sweep.Apply(&sw.Spec.Template, sw.Spec.Axes, p)
		if err != nil {
			return err.Error(), nil
		}
		sweep.LoadOnce(sw, spec, p.Index, 0)
		child := sweep.Child(sw, p.Index, 0, spec)
		err = r.Create(ctx, child, client.DryRunAll)
		switch {
		case err == nil, apierrors.IsAlreadyExists(err):
		case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
			return fmt.Sprintf("%s does not make a valid BenchmarkRun: %v", sweep.Describe(sw.Spec.Axes, p), err), nil
		default:
			return "", fmt.Errorf("dry-run creating BenchmarkRun %s: %w", child.Name, err)
		}
	}
	return "", nil
}

// children reads the sweep's runs from the cache, by name; runs that carry the sweep's label
// but are not controlled by it are not its own.
func (r *BenchmarkSweepReconciler) children(ctx context.Context, sw *cbv1.BenchmarkSweep) (map[string]*cbv1.BenchmarkRun, error) {
	var list cbv1.BenchmarkRunList
	if err := r.List(ctx, &list, client.InNamespace(sw.Namespace), client.MatchingLabels{cbv1.SweepLabel: sw.Name}); err != nil {
		return nil, fmt.Errorf("listing the sweep's BenchmarkRuns: %w", err)
	}
	runs := make(map[string]*cbv1.BenchmarkRun, len(list.Items))
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], sw) {
			runs[list.Items[i].Name] = &list.Items[i]
		}
	}
	return runs, nil
}

// create makes one run of the sweep. AlreadyExists means an earlier pass (or manager) made it
// and the cache has not caught up; a run of that name that is not the sweep's is an error.
func (r *BenchmarkSweepReconciler) create(ctx context.Context, sw *cbv1.BenchmarkSweep, p sweep.Point, slot sweep.Slot) (*cbv1.BenchmarkRun, error) {
	spec, err := sweep.Apply(&sw.Spec.Template, sw.Spec.Axes, p)
	if err != nil {
		return nil, reconcile.TerminalError(err)
	}
	sweep.LoadOnce(sw, spec, slot.Point, slot.Repeat)
	child := sweep.Child(sw, slot.Point, slot.Repeat, spec)
	err = r.Create(ctx, child)
	if apierrors.IsAlreadyExists(err) {
		existing := &cbv1.BenchmarkRun{}
		if err := r.Get(ctx, client.ObjectKeyFromObject(child), existing); err != nil {
			return nil, fmt.Errorf("getting BenchmarkRun %s: %w", child.Name, err)
		}
		if !metav1.IsControlledBy(existing, sw) {
			msg := fmt.Sprintf("BenchmarkRun %s already exists and does not belong to this sweep; delete it so that %s can run",
				child.Name, sweep.Describe(sw.Spec.Axes, p))
			r.Recorder.Eventf(sw, existing, corev1.EventTypeWarning, reasonRunNameTaken, "CreateRun", "%s", msg)
			return nil, errors.New(msg)
		}
		return existing, nil
	}
	if err != nil {
		return nil, fmt.Errorf("creating BenchmarkRun %s: %w", child.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("created run", "run", klog.KObj(child), "point", slot.Point, "repeat", slot.Repeat)
	r.Recorder.Eventf(sw, child, corev1.EventTypeNormal, cbv1.ReasonPointStarted, "CreateRun",
		"created BenchmarkRun %s for %s, repeat %d of %d", child.Name, sweep.Describe(sw.Spec.Axes, p), slot.Repeat+1, sweep.Repeats(sw))
	return child, nil
}

// reasonRunNameTaken: a run the sweep must create exists and belongs to something else.
const reasonRunNameTaken = "RunNameTaken"

// condition sets a condition and emits an event when its status or reason changed.
func (r *BenchmarkSweepReconciler) condition(sw *cbv1.BenchmarkSweep, t string, status metav1.ConditionStatus, reason, msg string) {
	if setSweepCondition(sw, t, status, reason, msg) {
		kind := corev1.EventTypeNormal
		if status == metav1.ConditionFalse {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(sw, nil, kind, reason, t, "%s", msg)
	}
}

// SetupWithManager registers the reconciler; it owns the sweep's runs, so every change of a
// run's status brings its sweep back.
func (r *BenchmarkSweepReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&cbv1.BenchmarkSweep{}).
		Owns(&cbv1.BenchmarkRun{}).
		Complete(r)
}
