package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/nodeops"
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
	// NudgeInterval is how often a run waiting for cass-operator to apply its change asks it
	// to look again (lending.NudgeInterval when zero; tests shorten it).
	NudgeInterval time.Duration
	// PricingConfigMap holds the prices (PricingKey) of runs that give none; empty: none.
	PricingConfigMap types.NamespacedName
	// NodeOps reaches the management API of the datacenter's pods for spec.disruptions.
	NodeOps nodeops.Client
	// decoded keeps the writer reports decoded from ConfigMaps between passes.
	decoded decodedReports
}

// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cassbench.io,resources=benchmarkruns/finalizers,verbs=update
// +kubebuilder:rbac:groups=cassandra.datastax.com,resources=cassandradatacenters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete
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
	if err := r.judgeRegression(ctx, run, &status); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, run, status); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: s.requeueAfter}, nil
}

// perform carries out a step in order: finalizer, stop Jobs, datacenter, Jobs. It returns the
// status to write: the step's, or, when the apiserver refused a write for good, the observed
// status with the refusal failing the stage. Any other error is returned, and nothing of the
// step's status is written.
func (r *BenchmarkRunReconciler) perform(ctx context.Context, run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, s step) (cbv1.BenchmarkRunStatus, error) {
	status := s.status
	refused := func(stage, what string, err error) (cbv1.BenchmarkRunStatus, error) {
		st := *run.Status.DeepCopy()
		msg := lending.RefusedMessage(datacenter.RunHolder(client.ObjectKeyFromObject(run)), what, err, stage == cbv1.ConditionDatacenterRestored)
		conditions.Set(&st.Conditions, run.Generation, r.Clock.Now(), stage, metav1.ConditionFalse, cbv1.ReasonRefused, msg)
		ctrl.LoggerFrom(ctx).Info("write refused", "what", what, "error", err.Error())
		return st, nil
	}
	// Writer reports first: the same pass may stop the Jobs whose pods hold them.
	if err := r.storeReports(ctx, s.reports); terminal(err) || errors.Is(err, errNotOurs) {
		return refused(cbv1.ConditionWritersComplete, "storing writer reports", err)
	} else if err != nil {
		return status, err
	}
	if s.addFinalizer {
		if err := setFinalizer(ctx, r.Client, run, true); err != nil {
			return status, err
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
		if s.on != nil {
			dc = s.on
		}
		if dc == nil {
			return status, fmt.Errorf("%s: no datacenter to change", c.What)
		}
		generation, err := patchDatacenter(ctx, r.Client, c, dc.DeepCopy())
		if terminal(err) {
			return refused(c.Stage, c.What+" CassandraDatacenter "+keyOf(dc).String(), err)
		}
		if err != nil {
			return status, err
		}
		if c.Restore {
			restoredGeneration(&status, keyOf(dc), generation)
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
	if a := s.disrupt; a != nil {
		if err := r.makeDisruption(ctx, a, &status); err != nil {
			return status, err
		}
	}
	if s.removeFinalizer {
		if err := setFinalizer(ctx, r.Client, run, false); err != nil {
			return status, err
		}
	}
	return status, nil
}

// writeStatus stores the decided status, with what it derives, through the one status writer
// (writeStatus in status_writer.go).
func (r *BenchmarkRunReconciler) writeStatus(ctx context.Context, run *cbv1.BenchmarkRun, status cbv1.BenchmarkRunStatus) error {
	next := run.DeepCopy()
	next.Status = *status.DeepCopy()
	derive(next, r.Clock.Now())
	return writeStatus(ctx, r.Client, r.Recorder, run, next)
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
	if r.NudgeInterval == 0 {
		r.NudgeInterval = lending.NudgeInterval
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &cbv1.BenchmarkRun{}, datacenterIndex,
		func(o client.Object) []string {
			// A run across several datacenters is filed under each: each one's events and
			// queue concern it.
			var keys []string
			for _, k := range datacenter.Keys(o.(*cbv1.BenchmarkRun)) {
				keys = append(keys, k.String())
			}
			return keys
		}); err != nil {
		return fmt.Errorf("indexing runs by datacenter: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&cbv1.BenchmarkRun{}).
		Owns(&batchv1.Job{}).
		Watches(&cassdcapi.CassandraDatacenter{}, handler.EnqueueRequestsFromMapFunc(indexedBy(r.Client, &cbv1.BenchmarkRunList{}, datacenterIndex))).
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
		if !lending.Finished(&run) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&run)})
		}
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
