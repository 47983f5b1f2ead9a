package controllers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/sweep"
)

// BenchmarkSweepReconciler runs a sweep's points as child BenchmarkRuns, one at a time in point
// order, and tabulates their results. The runs themselves are the BenchmarkRun controller's.
// With restore atEnd the sweep also holds the datacenter for its runs and puts it back once.
type BenchmarkSweepReconciler struct {
	client.Client
	// APIReader reads, uncached, the datacenter's own pods while a restore waits for
	// cass-operator to finish resizing, and the sweep as stored before a restore is planned.
	APIReader client.Reader
	Recorder  events.EventRecorder
	Clock     clock.PassiveClock
}

// Dry-run creates need create on benchmarkruns; an owner reference with blockOwnerDeletion
// needs update on the owner's finalizers where OwnerReferencesPermissionEnforcement is on.
// A deleted sweep with restore atEnd deletes its runs before it puts the datacenter back.

// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarksweeps,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarksweeps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarksweeps/finalizers,verbs=update
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=cassandra.datastax.com,resources=cassandradatacenters,verbs=get;list;watch;patch

// Reconcile validates every point once, then creates the next run when the previous one has
// finished, and rewrites the table from the runs. With restore atEnd it first takes the
// datacenter, and gives it back before the sweep's outcome is set. The status is written
// once, at the end of the pass, whatever the phases returned.
func (r *BenchmarkSweepReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	sw := &cbv1.BenchmarkSweep{}
	if err := r.Get(ctx, req.NamespacedName, sw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !sw.DeletionTimestamp.IsZero() {
		// Owner references take the runs away with the sweep; a sweep that holds its
		// datacenter stops its runs and puts the datacenter back first.
		if !controllerutil.ContainsFinalizer(sw, cbv1.Finalizer) {
			return ctrl.Result{}, nil
		}
		return r.deleted(ctx, sw)
	}
	if sweepFinished(sw) {
		// A finished sweep's table is final, even if its runs are deleted later. Its outcome
		// is set only once its datacenter is back, so the finalizer may go.
		return ctrl.Result{}, setFinalizer(ctx, r.Client, sw, false)
	}
	read := sw.DeepCopy()
	after, err := r.pass(ctx, sw)
	if werr := r.writeStatus(ctx, read, sw); err == nil {
		err = werr
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// pass is observe (observeSweep), decide (sweep.Decide, and sweep.DecideTake for a sweep that
// holds its datacenter), perform. What performing does, in order, each of which may stop the
// pass: mark the points valid, take the datacenter (restore atEnd), create the next run,
// tabulate, and once every run is done give the datacenter back and set the outcome. It
// returns when to look again for a clock event.
func (r *BenchmarkSweepReconciler) pass(ctx context.Context, sw *cbv1.BenchmarkSweep) (time.Duration, error) {
	o, err := r.observeSweep(ctx, sw)
	if o.validated {
		// Checked once: the points stay valid whatever the rest of the pass meets.
		r.condition(sw, cbv1.ConditionValid, metav1.ConditionTrue, cbv1.ReasonPointsValid,
			fmt.Sprintf("all %d points make BenchmarkRuns the apiserver accepts", len(o.Points)))
	}
	if err != nil {
		return 0, err
	}
	if o.problem != "" {
		return 0, r.invalid(sw, o.problem)
	}
	d := sweep.Decide(o.Observed)
	var t *sweep.Take
	if o.hold != nil && !d.Done {
		take := sweep.DecideTake(*o.hold)
		t = &take
	}
	return r.perform(ctx, sw, o, d, t)
}

// sweepObservation is what one pass of a sweep read.
type sweepObservation struct {
	sweep.Observed
	// problem is why the points are not valid; validated says they were checked this pass.
	problem   string
	validated bool
	// hold is the sweep's datacenter and its queue, for a sweep that holds it (restore atEnd).
	hold *sweep.HoldObserved
}

// observeSweep reads what the pass decides from: the points (checked once with dry-run
// creates), the sweep's runs and, for a sweep that holds its datacenter, the datacenter.
func (r *BenchmarkSweepReconciler) observeSweep(ctx context.Context, sw *cbv1.BenchmarkSweep) (sweepObservation, error) {
	var o sweepObservation
	points, err := sweep.Expand(&sw.Spec)
	if err != nil {
		o.problem = err.Error()
		return o, nil
	}
	sw.Status.Points = int32(len(points))
	o.Points = points
	if !meta.IsStatusConditionTrue(sw.Status.Conditions, cbv1.ConditionValid) {
		if o.problem, err = r.validate(ctx, sw, points); err != nil || o.problem != "" {
			return o, err
		}
		o.validated = true
	}
	runs, err := r.children(ctx, sw)
	if err != nil {
		return o, err
	}
	o.Observed = sweep.Observed{Sweep: sw, Points: points, Runs: runs}
	// Read on every pass of a sweep that holds its datacenter, also the passes that only
	// give it back: from the cache, so that deciding needs no further read.
	if sweep.HoldsDatacenter(sw) {
		hold, err := r.observeHold(ctx, sw)
		if err != nil {
			return o, err
		}
		o.hold = &hold
	}
	return o, nil
}

// perform carries out what the pass decided: t is how to take the datacenter, nil when the
// sweep does not hold it or every point is done. Giving the datacenter back (conclude, lost)
// still reads and decides inside giveBack: the stored sweep and the datacenter's pods are
// read only then.
func (r *BenchmarkSweepReconciler) perform(ctx context.Context, sw *cbv1.BenchmarkSweep, o sweepObservation, d sweep.Decision, t *sweep.Take) (time.Duration, error) {
	var after time.Duration
	held := true
	if t != nil {
		// The finalizer goes on before the sweep locks the datacenter, so that deleting the
		// sweep can always put it back.
		if err := setFinalizer(ctx, r.Client, sw, true); err != nil {
			return 0, err
		}
		if err := r.performTake(ctx, sw, o.hold.DC, *t); err != nil {
			return 0, err
		}
		switch {
		case t.Fail:
			r.condition(sw, cbv1.ConditionSucceeded, t.Status, t.Reason, t.Message)
			return 0, nil
		case t.Lost:
			return r.lost(ctx, sw, o.Observed, *t)
		}
		held, after = t.Held, t.RequeueAfter
	}
	if d.Create != nil && held {
		run, err := r.create(ctx, sw, o.Points[d.Create.Point], *d.Create)
		if err != nil {
			return 0, err
		}
		o.Runs[run.Name] = run
	}
	tabulate(sw, o.Observed, d)
	if !d.Done {
		return after, nil
	}
	return r.conclude(ctx, sw, d)
}

// conclude gives a finished sweep's datacenter back, then sets its outcome.
func (r *BenchmarkSweepReconciler) conclude(ctx context.Context, sw *cbv1.BenchmarkSweep, d sweep.Decision) (time.Duration, error) {
	if sweep.HoldsDatacenter(sw) {
		done, after, err := r.giveBack(ctx, sw, r.restoreSince(sw))
		if err != nil || !done {
			return after, err
		}
	}
	status, reason, msg := sweepOutcome(sw, d)
	r.condition(sw, cbv1.ConditionSucceeded, status, reason, msg)
	return 0, nil
}

// writeStatus stores the sweep's status, with its derived fields, through the one status
// writer (writeStatus in status_writer.go): one event per condition that changed, and one per
// point that reached an outcome, once the status is stored.
func (r *BenchmarkSweepReconciler) writeStatus(ctx context.Context, read, sw *cbv1.BenchmarkSweep) error {
	sw.Status.ObservedGeneration = sw.Generation
	// Every pass that finishes a sweep ends here: the one place its conditions are settled.
	settleSweep(sw, r.Clock.Now())
	sw.Status.Phase = sweepPhase(sw)
	progress := "validating the points"
	if sw.Status.Progress != "" {
		progress = "points " + sw.Status.Progress
	}
	conditions.Kstatus(&sw.Status.Conditions, sw.Generation, r.Clock.Now(), string(sw.Status.Phase), progress)
	return writeStatus(ctx, r.Client, r.Recorder, read, sw, pointEvents(sw.Spec.Axes, read.Status.Table, sw.Status.Table)...)
}

// deleted stops a deleted sweep's runs, then puts the datacenter back and lets the sweep go.
// The outcome of the restore is written before the finalizer goes: the object may vanish
// with it.
func (r *BenchmarkSweepReconciler) deleted(ctx context.Context, sw *cbv1.BenchmarkSweep) (ctrl.Result, error) {
	if !sweep.HoldsDatacenter(sw) {
		return ctrl.Result{}, setFinalizer(ctx, r.Client, sw, false)
	}
	read := sw.DeepCopy()
	done, after, err := r.stopAndGiveBack(ctx, sw)
	if werr := r.writeStatus(ctx, read, sw); err == nil {
		err = werr
	}
	switch {
	case err != nil:
		return ctrl.Result{}, err
	case !done:
		return ctrl.Result{RequeueAfter: after}, nil
	}
	return ctrl.Result{}, setFinalizer(ctx, r.Client, sw, false)
}

// stopAndGiveBack deletes a deleted sweep's runs and, once they are gone, gives the datacenter
// back. Runs give the datacenter back to the sweep, not to its originals: they must be gone
// (their writers stopped) before the sweep restores it, or they would load it afterwards.
func (r *BenchmarkSweepReconciler) stopAndGiveBack(ctx context.Context, sw *cbv1.BenchmarkSweep) (bool, time.Duration, error) {
	runs, err := r.children(ctx, sw)
	if err != nil {
		return false, 0, err
	}
	var stopping []string
	for _, run := range runs {
		if run.DeletionTimestamp.IsZero() {
			err := r.Delete(ctx, run, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &run.UID})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return false, 0, fmt.Errorf("deleting BenchmarkRun %s: %w", run.Name, err)
			}
		}
		if !lending.Finished(run) || controllerutil.ContainsFinalizer(run, cbv1.Finalizer) {
			stopping = append(stopping, run.Name)
		}
	}
	if len(stopping) > 0 {
		sort.Strings(stopping)
		r.condition(sw, cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonStoppingRuns, fmt.Sprintf(
			"the sweep was deleted; waiting for BenchmarkRun(s) %s to stop before the datacenter is put back", strings.Join(stopping, ", ")))
		return false, 0, nil
	}
	return r.giveBack(ctx, sw, sw.DeletionTimestamp.Time)
}

// invalid ends a sweep that can never run: the spec is immutable, so retrying cannot help.
func (r *BenchmarkSweepReconciler) invalid(sw *cbv1.BenchmarkSweep, problem string) error {
	r.condition(sw, cbv1.ConditionValid, metav1.ConditionFalse, cbv1.ReasonInvalidPoint, problem)
	r.condition(sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonInvalidPoint,
		"no run was created because a point is invalid: "+problem)
	return reconcile.TerminalError(errors.New(problem))
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
			r.Recorder.Eventf(sw, existing, corev1.EventTypeWarning, cbv1.ReasonRunNameTaken, "CreateRun", "%s", msg)
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

// condition sets a condition stamped with the sweep's generation (Succeeded never flips once
// set); its event follows the status write (writeStatus).
func (r *BenchmarkSweepReconciler) condition(sw *cbv1.BenchmarkSweep, t string, status metav1.ConditionStatus, reason, msg string) {
	conditions.Set(&sw.Status.Conditions, sw.Generation, r.Clock.Now(), t, status, reason, msg)
}

// SetupWithManager registers the reconciler; it owns the sweep's runs, so every change of a
// run's status brings its sweep back.
func (r *BenchmarkSweepReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &cbv1.BenchmarkSweep{}, sweepDatacenterIndex,
		func(o client.Object) []string {
			sw := o.(*cbv1.BenchmarkSweep)
			if !sweep.HoldsDatacenter(sw) {
				return nil
			}
			return []string{sweep.DatacenterKey(sw).String()}
		}); err != nil {
		return fmt.Errorf("indexing sweeps by datacenter: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&cbv1.BenchmarkSweep{}).
		Owns(&cbv1.BenchmarkRun{}).
		Watches(&cassdcapi.CassandraDatacenter{}, handler.EnqueueRequestsFromMapFunc(indexedBy(r.Client, &cbv1.BenchmarkSweepList{}, sweepDatacenterIndex))).
		Complete(r)
}

// sweepDatacenterIndex indexes sweeps with restore atEnd by the datacenter they hold, so that
// a datacenter event brings back the sweeps that hold it or wait for it.
const sweepDatacenterIndex = "spec.template.datacenterRef.key"
