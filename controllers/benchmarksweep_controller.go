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
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
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

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/datacenter"
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
// datacenter, and gives it back before the sweep's outcome is set.
func (r *BenchmarkSweepReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	sw := &cbv1.BenchmarkSweep{}
	if err := r.Get(ctx, req.NamespacedName, sw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	hasFinalizer := controllerutil.ContainsFinalizer(sw, cbv1.Finalizer)
	if !sw.DeletionTimestamp.IsZero() {
		// Owner references take the runs away with the sweep; a sweep that holds its
		// datacenter stops its runs and puts the datacenter back first.
		if !hasFinalizer {
			return ctrl.Result{}, nil
		}
		return r.deleted(ctx, sw)
	}
	if sweepFinished(sw) {
		// A finished sweep's table is final, even if its runs are deleted later. Its outcome
		// is set only once its datacenter is back, so the finalizer may go.
		return ctrl.Result{}, r.setFinalizer(ctx, sw, false)
	}
	before := sw.DeepCopy()
	defer func() {
		if perr := r.writeStatus(ctx, before, sw); perr != nil {
			result, err = ctrl.Result{}, perr
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
	held := true
	if sweep.HoldsDatacenter(sw) && !d.Done {
		// The finalizer goes on before the sweep locks the datacenter, so that deleting the
		// sweep can always put it back.
		if err := r.setFinalizer(ctx, sw, true); err != nil {
			return ctrl.Result{}, err
		}
		t, err := r.take(ctx, sw)
		if err != nil {
			return ctrl.Result{}, err
		}
		switch {
		case t.Fail:
			r.condition(sw, cbv1.ConditionSucceeded, t.Status, t.Reason, t.Message)
			return ctrl.Result{}, nil
		case t.Lost:
			return r.lost(ctx, sw, o, t)
		}
		held = t.Held
		result.RequeueAfter = t.RequeueAfter
	}
	if d.Create != nil && held {
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
		if sweep.HoldsDatacenter(sw) {
			done, after, err := r.giveBack(ctx, sw, r.restoreSince(sw))
			if err != nil || !done {
				return ctrl.Result{RequeueAfter: after}, err
			}
		}
		status, reason, msg := sweepOutcome(sw, d)
		r.condition(sw, cbv1.ConditionSucceeded, status, reason, msg)
	}
	return result, nil
}

// lost ends a sweep whose lock someone removed: its running point fails on its own (LockLost);
// once no run is left the sweep puts back what it can and fails.
func (r *BenchmarkSweepReconciler) lost(ctx context.Context, sw *cbv1.BenchmarkSweep, o sweep.Observed, t sweep.Take) (ctrl.Result, error) {
	tabulate(sw, o, sweep.Decision{})
	for _, run := range o.Runs {
		if !lending.Finished(run) {
			return ctrl.Result{}, nil
		}
	}
	done, after, err := r.giveBack(ctx, sw, r.restoreSince(sw))
	if err != nil || !done {
		return ctrl.Result{RequeueAfter: after}, err
	}
	r.condition(sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonLockLost, t.Message+"; the sweep created no further runs; status.table has what was measured")
	return ctrl.Result{}, nil
}

// restoreSince is when giving back began, which its deadline counts from: when the
// DatacenterRestored condition first appeared (it stays False until the end), or now.
func (r *BenchmarkSweepReconciler) restoreSince(sw *cbv1.BenchmarkSweep) time.Time {
	if c := meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionDatacenterRestored); c != nil {
		return c.LastTransitionTime.Time
	}
	return r.Clock.Now()
}

// writeStatus stores the sweep's status, with its derived fields, when it changed.
func (r *BenchmarkSweepReconciler) writeStatus(ctx context.Context, before, sw *cbv1.BenchmarkSweep) error {
	sw.Status.ObservedGeneration = sw.Generation
	// Every pass that finishes a sweep ends here: the one place its conditions are settled.
	settleSweep(sw, r.Clock.Now())
	sw.Status.Phase = sweepPhase(sw)
	progress := "validating the points"
	if sw.Status.Progress != "" {
		progress = "points " + sw.Status.Progress
	}
	conditions.Kstatus(&sw.Status.Conditions, sw.Generation, string(sw.Status.Phase), progress)
	if equality.Semantic.DeepEqual(before.Status, sw.Status) {
		return nil
	}
	if err := r.Status().Patch(ctx, sw, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("writing status: %w", err)
	}
	return nil
}

// setFinalizer adds or removes the sweep's finalizer, when that changes anything.
func (r *BenchmarkSweepReconciler) setFinalizer(ctx context.Context, sw *cbv1.BenchmarkSweep, want bool) error {
	if controllerutil.ContainsFinalizer(sw, cbv1.Finalizer) == want {
		return nil
	}
	next := sw.DeepCopy()
	if want {
		controllerutil.AddFinalizer(next, cbv1.Finalizer)
	} else {
		controllerutil.RemoveFinalizer(next, cbv1.Finalizer)
	}
	if err := r.Patch(ctx, next, client.MergeFrom(sw)); err != nil {
		if !want && apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("updating the sweep's finalizers: %w", err)
	}
	sw.Finalizers, sw.ResourceVersion = next.Finalizers, next.ResourceVersion
	return nil
}

// take observes the datacenter and its queue, and locks it and records its originals when it
// is the sweep's turn.
func (r *BenchmarkSweepReconciler) take(ctx context.Context, sw *cbv1.BenchmarkSweep) (sweep.Take, error) {
	o := sweep.HoldObserved{Sweep: sw, Now: r.Clock.Now()}
	dc, err := r.datacenter(ctx, sw)
	if err != nil {
		return sweep.Take{}, err
	}
	o.DC = dc
	if dc != nil {
		me := datacenter.SweepHolder(client.ObjectKeyFromObject(sw))
		if holder, locked := datacenter.LockHolder(dc); locked && holder != me {
			if o.HolderAlive, err = holderAlive(ctx, r.Client, holder); err != nil {
				return sweep.Take{}, err
			}
		}
		if o.Ahead, err = r.ahead(ctx, sw, dc); err != nil {
			return sweep.Take{}, err
		}
	}
	t := sweep.DecideTake(o)
	if t.Lock {
		lock := datacenter.LockValue(datacenter.SweepHolder(client.ObjectKeyFromObject(sw)))
		if _, err := patchDatacenter(ctx, r.Client, &lending.Change{What: "locking", Lock: &lock}, dc.DeepCopy()); err != nil {
			return sweep.Take{}, err
		}
	}
	if t.Record != nil {
		sw.Status.Datacenter = t.Record
	}
	if !t.Fail {
		r.condition(sw, cbv1.ConditionDatacenterLocked, t.Status, t.Reason, t.Message)
	}
	return t, nil
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
func (r *BenchmarkSweepReconciler) ahead(ctx context.Context, sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter) (string, error) {
	all, err := runsOf(ctx, r.Client, dc)
	if err != nil {
		return "", err
	}
	// Only runs that waited before the sweep was created, and are not its own.
	var before []cbv1.BenchmarkRun
	for _, run := range all {
		if run.Status.StartTime == nil && !metav1.IsControlledBy(&run, sw) && run.CreationTimestamp.Before(&sw.CreationTimestamp) {
			before = append(before, run)
		}
	}
	if q := lending.Queue(dc, before, workDone); len(q) > 0 {
		return client.ObjectKeyFromObject(&q[0]).String(), nil
	}
	return "", nil
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
			plan = lending.Plan{Status: metav1.ConditionFalse, Reason: cbv1.ReasonRefused, Message: fmt.Sprintf(
				"the apiserver refused %s CassandraDatacenter %s: %v; restore it by hand from the sweep's status.datacenter.originalSize and originalConfig (see docs/datacenter-lifecycle.md)",
				c.What, client.ObjectKeyFromObject(dc), err)}
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

// deleted stops a deleted sweep's runs, then puts the datacenter back and lets the sweep go.
func (r *BenchmarkSweepReconciler) deleted(ctx context.Context, sw *cbv1.BenchmarkSweep) (result ctrl.Result, err error) {
	if !sweep.HoldsDatacenter(sw) {
		return ctrl.Result{}, r.setFinalizer(ctx, sw, false)
	}
	before := sw.DeepCopy()
	defer func() {
		if perr := r.writeStatus(ctx, before, sw); perr != nil {
			result, err = ctrl.Result{}, perr
		}
	}()
	runs, err := r.children(ctx, sw)
	if err != nil {
		return ctrl.Result{}, err
	}
	// Runs give the datacenter back to the sweep, not to its originals: they must be gone
	// (their writers stopped) before the sweep restores it, or they would load it afterwards.
	var stopping []string
	for _, run := range runs {
		if run.DeletionTimestamp.IsZero() {
			err := r.Delete(ctx, run, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &run.UID})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return ctrl.Result{}, fmt.Errorf("deleting BenchmarkRun %s: %w", run.Name, err)
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
		return ctrl.Result{}, nil
	}
	done, after, err := r.giveBack(ctx, sw, sw.DeletionTimestamp.Time)
	if err != nil || !done {
		return ctrl.Result{RequeueAfter: after}, err
	}
	// Write the outcome of the restore before the finalizer goes: the object may vanish with it.
	if err := r.writeStatus(ctx, before, sw); err != nil {
		return ctrl.Result{}, err
	}
	before = sw.DeepCopy()
	return ctrl.Result{}, r.setFinalizer(ctx, sw, false)
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
		Watches(&cassdcapi.CassandraDatacenter{}, handler.EnqueueRequestsFromMapFunc(r.sweepsOfDatacenter)).
		Complete(r)
}

// sweepDatacenterIndex indexes sweeps with restore atEnd by the datacenter they hold.
const sweepDatacenterIndex = "spec.template.datacenterRef.key"

// sweepsOfDatacenter maps a datacenter event to the sweeps that hold it or wait for it.
func (r *BenchmarkSweepReconciler) sweepsOfDatacenter(ctx context.Context, o client.Object) []reconcile.Request {
	var sweeps cbv1.BenchmarkSweepList
	key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}.String()
	if err := r.List(ctx, &sweeps, client.MatchingFields{sweepDatacenterIndex: key}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing sweeps of datacenter", "datacenter", klog.KObj(o))
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(sweeps.Items))
	for _, sw := range sweeps.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&sw)})
	}
	return reqs
}
