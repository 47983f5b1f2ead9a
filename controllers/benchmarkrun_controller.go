// Package controllers holds the reconcilers: orchestration and I/O only; the decisions live in
// internal/ and in the pure files benchmarkrun_decide.go and *_status.go.
package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/sweep"
)

// datacenterIndex indexes runs by the namespace/name of the datacenter they refer to.
const datacenterIndex = "spec.datacenterRef.key"

// DefaultProgressInterval is how often a running run's progress is written to status.
const DefaultProgressInterval = 10 * time.Second

// DefaultPodStartGrace is how long a pod of a run's Job may fail to start (an image pull
// failing, a Secret or ConfigMap it reads missing) before the run fails: the kubelet retries
// those, and a Secret applied with the run may arrive after it.
const DefaultPodStartGrace = 2 * time.Minute

// BenchmarkRunReconciler takes a BenchmarkRun from applied to Succeeded: it locks, sizes and
// tunes the datacenter, runs setup and writer Jobs, collects results and gives the datacenter
// back. Each pass observes, decides (decide, pure) and performs what was decided.
type BenchmarkRunReconciler struct {
	client.Client
	// APIReader reads what the cache does not hold: the datacenter's own pods, only while a
	// restore waits for cass-operator to finish resizing.
	APIReader client.Reader
	Recorder  events.EventRecorder
	Clock     clock.PassiveClock
	// Image runs setup and writer pods unless a run names its own.
	Image string
	// AllowedImages are the images besides Image a run may name (a trailing * matches a prefix).
	AllowedImages []string
	// WatchNamespaces are the namespaces the manager's cache holds; empty means all.
	WatchNamespaces []string
	// ProgressInterval between progress updates while writers run.
	ProgressInterval time.Duration
	// PodStartGrace is how long a pod of a run's Job may fail to start before the run fails.
	PodStartGrace time.Duration
	// decoded keeps the writer reports decoded from ConfigMaps between passes.
	decoded decodedReports
}

// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns/finalizers,verbs=update
// +kubebuilder:rbac:groups=cassandra.datastax.com,resources=cassandradatacenters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile observes the run and what it touches, decides the next step and performs it.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &cbv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	o, err := r.observe(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := decide(o)
	status, err := r.perform(ctx, run, o.dc, s)
	if err != nil {
		// Nothing of this pass's status is written: the next pass decides again from what
		// is there.
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, run, status); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: s.requeueAfter}, nil
}

// observe reads everything decide needs.
func (r *BenchmarkRunReconciler) observe(ctx context.Context, run *cbv1.BenchmarkRun) (observation, error) {
	o := observation{run: run, now: r.Clock.Now(), image: r.Image, allowedImages: r.AllowedImages, progressInterval: r.ProgressInterval,
		podStartGrace: r.PodStartGrace}
	key := datacenter.Key(run)
	if len(r.WatchNamespaces) > 0 && !slices.Contains(r.WatchNamespaces, key.Namespace) {
		o.notWatched = true
	} else {
		dc := &cassdcapi.CassandraDatacenter{}
		err := r.Get(ctx, key, dc)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return o, fmt.Errorf("getting CassandraDatacenter %s: %w", key, err)
		default:
			o.dc = dc
		}
	}
	if o.dc != nil {
		if holder, locked := datacenter.LockHolder(o.dc); locked && holder != datacenter.RunHolder(client.ObjectKeyFromObject(run)) {
			alive, err := holderAlive(ctx, r.Client, holder)
			if err != nil {
				return o, err
			}
			o.holderAlive = alive
			if holder.Sweep {
				if o.lender, err = r.lender(ctx, run, holder); err != nil {
					return o, err
				}
			}
		}
		head, position, err := r.queueHead(ctx, run, o.dc)
		if err != nil {
			return o, err
		}
		o.queueHead, o.queuePosition = head, position
	}
	if err := r.observeJobs(ctx, run, &o); err != nil {
		return o, err
	}
	if err := r.observeReports(ctx, run, &o); err != nil {
		return o, err
	}
	restoring := o.dc != nil && datacenter.Resizing(o.dc) && (!run.DeletionTimestamp.IsZero() || pendingOutcome(run) != nil)
	if o.dc != nil && r.APIReader != nil && (restoring || waitingForReady(run)) {
		var pods corev1.PodList
		if err := r.APIReader.List(ctx, &pods, client.InNamespace(o.dc.Namespace), client.MatchingLabels(o.dc.GetDatacenterLabels())); err != nil {
			return o, fmt.Errorf("listing the pods of CassandraDatacenter %s: %w", key, err)
		}
		o.dcPendingPods = notReady(pods.Items)
	}
	return o, nil
}

// waitingForReady tells whether the run has patched its datacenter and waits for cass-operator
// to report it ready: the pods that are not are named if the prepare deadline passes.
func waitingForReady(run *cbv1.BenchmarkRun) bool {
	st := run.Status.Datacenter
	return st != nil && st.PatchedGeneration != 0 && pendingOutcome(run) == nil && run.DeletionTimestamp.IsZero() &&
		!meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionDatacenterReady)
}

// notReady names the pods that are not running and ready, with why, in name order: the phase,
// why the pod is not scheduled, and for each container that is not ready its state, its last
// termination and its restarts, as `kubectl describe pod` shows them.
func notReady(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		ready := false
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if ready && p.DeletionTimestamp == nil {
			continue
		}
		why := string(p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
				why += ": " + c.Message
			}
		}
		for _, c := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			if s := containerNotReady(c); s != "" {
				why += "; " + s
			}
		}
		out = append(out, p.Name+" ("+why+")")
	}
	sort.Strings(out)
	return out
}

// containerNotReady says why a container is not ready, or "" when it is (or, for an init
// container, has completed).
func containerNotReady(c corev1.ContainerStatus) string {
	if c.Ready || (c.State.Terminated != nil && c.State.Terminated.ExitCode == 0) {
		return ""
	}
	var parts []string
	switch s := c.State; {
	case s.Waiting != nil:
		parts = append(parts, "waiting: "+joinNonEmpty(": ", s.Waiting.Reason, s.Waiting.Message))
	case s.Terminated != nil:
		parts = append(parts, fmt.Sprintf("terminated: %s", terminated(s.Terminated)))
	case s.Running != nil:
		parts = append(parts, "running, not ready")
	}
	if t := c.LastTerminationState.Terminated; t != nil {
		parts = append(parts, "last terminated: "+terminated(t))
	}
	if c.RestartCount > 0 {
		parts = append(parts, fmt.Sprintf("restarted %d times", c.RestartCount))
	}
	return "container " + c.Name + " " + strings.Join(parts, ", ")
}

func terminated(t *corev1.ContainerStateTerminated) string {
	return joinNonEmpty(": ", fmt.Sprintf("%s (exit code %d)", t.Reason, t.ExitCode), strings.TrimSpace(t.Message))
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// observeJobs reads the run's Jobs and their pods. Only Jobs the run controls count, and only
// pods those Jobs control: a Job or pod left by an earlier run of the same name (deleted with
// --cascade=orphan) is never read as this run's.
func (r *BenchmarkRunReconciler) observeJobs(ctx context.Context, run *cbv1.BenchmarkRun, o *observation) error {
	var list batchv1.JobList
	if err := r.List(ctx, &list, client.InNamespace(run.Namespace), client.MatchingLabels{cbv1.RunLabel: run.Name}); err != nil {
		return fmt.Errorf("listing Jobs: %w", err)
	}
	var pods corev1.PodList
	if len(list.Items) > 0 {
		if err := r.List(ctx, &pods, client.InNamespace(run.Namespace), client.MatchingLabels{cbv1.RunLabel: run.Name}); err != nil {
			return fmt.Errorf("listing pods: %w", err)
		}
	}
	o.jobs, o.foreign, o.pods = owned(run, list.Items, pods.Items)
	return nil
}

// owned sorts what carries the run's label into the run's own Jobs by component, Jobs of
// the run's name that are not its own, and the pods its own Jobs control, by component.
func owned(run *cbv1.BenchmarkRun, jobList []batchv1.Job, podList []corev1.Pod) (map[string]*batchv1.Job, map[string]*batchv1.Job, map[string][]corev1.Pod) {
	own, foreign, pods := map[string]*batchv1.Job{}, map[string]*batchv1.Job{}, map[string][]corev1.Pod{}
	components := map[types.UID]string{}
	for i := range jobList {
		job := &jobList[i]
		if !metav1.IsControlledBy(job, run) {
			foreign[job.Name] = job
			continue
		}
		component := job.Labels[cbv1.ComponentLabel]
		own[component] = job
		components[job.UID] = component
	}
	sorted := append([]corev1.Pod(nil), podList...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, p := range sorted {
		ref := metav1.GetControllerOf(&p)
		if ref == nil {
			continue
		}
		if component, ok := components[ref.UID]; ok {
			pods[component] = append(pods[component], p)
		}
	}
	return own, foreign, pods
}

// holderAlive tells whether the run or sweep named in a lock still needs it. A lock whose
// holder is gone (its finalizer was removed by hand), or finished (a lock annotation put back
// by GitOps or a backup), is stale and may be taken.
func holderAlive(ctx context.Context, c client.Reader, holder datacenter.Holder) (bool, error) {
	if holder.Sweep {
		sw := &cbv1.BenchmarkSweep{}
		err := c.Get(ctx, holder.NamespacedName, sw)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("getting lock holder %s: %w", holder, err)
		}
		return !sweep.GaveBack(sw), nil
	}
	other := &cbv1.BenchmarkRun{}
	err := c.Get(ctx, holder.NamespacedName, other)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting lock holder %s: %w", holder, err)
	}
	return !finished(other), nil
}

// lender returns the sweep that holds the run's datacenter when it is the run's own
// controller; nil otherwise.
func (r *BenchmarkRunReconciler) lender(ctx context.Context, run *cbv1.BenchmarkRun, holder datacenter.Holder) (*cbv1.BenchmarkSweep, error) {
	ref := metav1.GetControllerOf(run)
	if ref == nil || ref.Kind != "BenchmarkSweep" || ref.Name != holder.Name || run.Namespace != holder.Namespace {
		return nil, nil
	}
	sw := &cbv1.BenchmarkSweep{}
	if err := r.Get(ctx, holder.NamespacedName, sw); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if sw.UID != ref.UID {
		return nil, nil
	}
	return sw, nil
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

// perform carries out a step in order: finalizer, stop Jobs, datacenter, Jobs. It returns the
// status to write: the step's, or, when the apiserver refused a write for good, the observed
// status with the refusal failing the stage. Any other error is returned, and nothing of the
// step's status is written.
func (r *BenchmarkRunReconciler) perform(ctx context.Context, run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, s step) (cbv1.BenchmarkRunStatus, error) {
	status := s.status
	refused := func(stage, what string, err error) (cbv1.BenchmarkRunStatus, error) {
		st := *run.Status.DeepCopy()
		reason := cbv1.ReasonRefused
		msg := fmt.Sprintf("the apiserver refused %s: %v", what, err)
		if stage == cbv1.ConditionDatacenterRestored {
			msg += "; restore the datacenter by hand from status.datacenter.originalSize and originalConfig (see docs/datacenter-lifecycle.md)"
		}
		conditions.Set(&st.Conditions, run.Generation, stage, metav1.ConditionFalse, reason, msg)
		ctrl.LoggerFrom(ctx).Info("write refused", "what", what, "error", err.Error())
		return st, nil
	}
	// Writer reports first: the same pass may stop the Jobs whose pods hold them.
	if err := r.storeReportConfigMaps(ctx, s.reports); terminal(err) || errors.Is(err, errNotOurs) {
		return refused(cbv1.ConditionWritersComplete, "storing writer reports", err)
	} else if err != nil {
		return status, err
	}
	if s.addFinalizer {
		patch := client.MergeFrom(run.DeepCopy())
		controllerutil.AddFinalizer(run, cbv1.Finalizer)
		if err := r.Patch(ctx, run, patch); err != nil {
			return status, fmt.Errorf("adding finalizer: %w", err)
		}
	}
	for _, job := range s.stop {
		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Suspend = ptr.To(true)
		if err := r.Patch(ctx, job, patch); err != nil && !apierrors.IsNotFound(err) {
			return status, fmt.Errorf("suspending Job %s: %w", job.Name, err)
		}
	}
	if job := s.deleteForeign; job != nil {
		err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &job.UID})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return status, fmt.Errorf("deleting Job %s left by an earlier run: %w", job.Name, err)
		}
	}
	if c := s.dc; c != nil {
		generation, err := r.patchDatacenter(ctx, c, dc.DeepCopy())
		if terminal(err) {
			return refused(c.stage, c.what+" CassandraDatacenter "+datacenter.Key(run).String(), err)
		}
		if err != nil {
			return status, err
		}
		if c.restore && status.Datacenter != nil {
			status.Datacenter.RestoredGeneration = generation
		}
	}
	if job := s.create; job != nil {
		err := r.Create(ctx, job)
		if terminal(err) {
			return refused(s.createStage, "creating Job "+job.Name, err)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return status, fmt.Errorf("creating Job %s: %w", job.Name, err)
		}
	}
	if s.removeFinalizer {
		patch := client.MergeFrom(run.DeepCopy())
		controllerutil.RemoveFinalizer(run, cbv1.Finalizer)
		if err := r.Patch(ctx, run, patch); err != nil && !apierrors.IsNotFound(err) {
			return status, fmt.Errorf("removing finalizer: %w", err)
		}
	}
	return status, nil
}

// terminal tells whether the apiserver refused a write for good: invalid (422), forbidden by
// RBAC, a webhook or a policy engine (403), or malformed (400). Retrying cannot help.
func terminal(err error) bool {
	return err != nil && (apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err))
}

// patchDatacenter applies a change to the datacenter, conditional on the version the pass
// decided from, and returns the generation it produced.
func (r *BenchmarkRunReconciler) patchDatacenter(ctx context.Context, c *dcChange, dc *cassdcapi.CassandraDatacenter) (int64, error) {
	return patchDatacenter(ctx, r.Client, c, dc)
}

// patchDatacenter applies a change of a run or a sweep to the datacenter, conditional on the
// version it was decided from, and returns the generation it produced.
func patchDatacenter(ctx context.Context, w client.Writer, c *dcChange, dc *cassdcapi.CassandraDatacenter) (int64, error) {
	key := client.ObjectKeyFromObject(dc)
	patch := client.MergeFromWithOptions(dc.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if c.size != nil {
		dc.Spec.Size = *c.size
	}
	if c.setConfig {
		dc.Spec.Config = append(json.RawMessage(nil), c.config...)
	}
	if c.lock != nil {
		if *c.lock == "" {
			delete(dc.Annotations, cbv1.LockAnnotation)
		} else {
			if dc.Annotations == nil {
				dc.Annotations = map[string]string{}
			}
			dc.Annotations[cbv1.LockAnnotation] = *c.lock
		}
	}
	if err := w.Patch(ctx, dc, patch); err != nil {
		// A conflict means someone wrote since this pass read: the next pass looks again.
		return 0, fmt.Errorf("%s CassandraDatacenter %s: %w", c.what, key, err)
	}
	return dc.Generation, nil
}

// writeStatus stores the decided status when it changed, and emits one event per condition
// that changed state. The patch is conditional on the version read, so a pass that worked
// from a stale cache cannot overwrite a newer status; the newer version's event brings the run
// back with fresh data.
func (r *BenchmarkRunReconciler) writeStatus(ctx context.Context, run *cbv1.BenchmarkRun, status cbv1.BenchmarkRunStatus) error {
	before := run.Status
	next := run.DeepCopy()
	next.Status = *status.DeepCopy()
	derive(next)
	if equality.Semantic.DeepEqual(before, next.Status) {
		return nil
	}
	base := run.DeepCopy()
	base.Status = before
	err := r.Status().Patch(ctx, next, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("writing status: %w", err)
	}
	if err != nil {
		return nil
	}
	for _, c := range conditions.Changed(before.Conditions, next.Status.Conditions) {
		if c.Type == cbv1.ConditionReady || c.Type == cbv1.ConditionReconciling || c.Type == cbv1.ConditionStalled {
			continue
		}
		kind := corev1.EventTypeNormal
		if (c.Status == metav1.ConditionFalse && failedReasons[c.Reason]) || warningReasons[c.Reason] {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(run, nil, kind, c.Reason, c.Type, "%s", c.Message)
	}
	return nil
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
	if r.PodStartGrace == 0 {
		r.PodStartGrace = DefaultPodStartGrace
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
		Watches(&cbv1.BenchmarkSweep{}, handler.EnqueueRequestsFromMapFunc(r.runsOfSweep)).
		Complete(r)
}

// runsOfSweep maps a sweep event to its unfinished runs: a run of a sweep with restore atEnd
// uses the datacenter once the sweep has recorded its originals.
func (r *BenchmarkRunReconciler) runsOfSweep(ctx context.Context, o client.Object) []reconcile.Request {
	var runs cbv1.BenchmarkRunList
	if err := r.List(ctx, &runs, client.InNamespace(o.GetNamespace()), client.MatchingLabels{cbv1.SweepLabel: o.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing runs of sweep", "sweep", klog.KObj(o))
		return nil
	}
	var reqs []reconcile.Request
	for _, run := range runs.Items {
		if !finished(&run) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&run)})
		}
	}
	return reqs
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
