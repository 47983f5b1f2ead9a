package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/lending"
)

// observe reads, for one pass, everything decide needs: the datacenter, who holds its lock,
// the queue, the run's Jobs and their pods, and the datacenter's pods that are not ready.
func (r *BenchmarkRunReconciler) observe(ctx context.Context, run *cbv1.BenchmarkRun) (observation, error) {
	o := observation{run: run, now: r.Clock.Now(), image: r.Image, allowedImages: r.AllowedImages, progressInterval: r.ProgressInterval,
		podStartGrace: r.PodStartGrace, nudgeInterval: r.NudgeInterval}
	key := datacenter.Key(run)
	switch {
	case len(run.Spec.Datacenters) > 0:
		if err := r.observeNamed(ctx, run, &o); err != nil {
			return o, err
		}
		if err := r.observeSeveral(ctx, run, &o); err != nil {
			return o, err
		}
	case len(r.WatchNamespaces) > 0 && !slices.Contains(r.WatchNamespaces, key.Namespace):
		o.notWatched = true
	default:
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
	if o.dc != nil && len(run.Spec.Schema.Replication.Datacenters) > 0 {
		if err := r.observeCluster(ctx, &o); err != nil {
			return o, err
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
	if err := r.observePricing(ctx, run, &o); err != nil {
		return o, err
	}
	restoring := o.dc != nil && datacenter.Resizing(o.dc) && (!run.DeletionTimestamp.IsZero() || pendingOutcome(run) != nil)
	if o.dc != nil && r.APIReader != nil && (restoring || waitingForReady(run) || disrupting(run) || rollingBack(run)) {
		var pods corev1.PodList
		if err := r.APIReader.List(ctx, &pods, client.InNamespace(o.dc.Namespace), client.MatchingLabels(o.dc.GetDatacenterLabels())); err != nil {
			return o, fmt.Errorf("listing the pods of CassandraDatacenter %s: %w", key, err)
		}
		o.dcPendingPods = notReady(pods.Items)
		o.dcPods = pods.Items
	}
	return o, nil
}

// disrupting tells whether the run has disruptions to make or to wait for: from its writers'
// Job until the datacenter is given back.
func disrupting(run *cbv1.BenchmarkRun) bool {
	return len(run.Spec.Disruptions) > 0 && !lending.Finished(run) &&
		meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionSchemaReady) != nil
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
		if p.DeletionTimestamp != nil {
			why += "; terminating"
		}
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
	all, err := runsOf(ctx, r.Client, dc)
	if err != nil {
		return client.ObjectKey{}, 0, err
	}
	me := client.ObjectKeyFromObject(run)
	var queue []cbv1.BenchmarkRun
	for _, q := range lending.Queue(dc, all, workDone) {
		holds, err := r.holdsEveryBefore(ctx, &q, keyOf(dc))
		if err != nil {
			return client.ObjectKey{}, 0, err
		}
		if holds {
			queue = append(queue, q)
		}
	}
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

// observeNamed reads the datacenters of a run across several, and the cluster's when the run
// names datacenters in its keyspace's replication.
func (r *BenchmarkRunReconciler) observeNamed(ctx context.Context, run *cbv1.BenchmarkRun, o *observation) error {
	o.named = make([]*cassdcapi.CassandraDatacenter, len(run.Spec.Datacenters))
	for i, d := range run.Spec.Datacenters {
		key := types.NamespacedName{Namespace: d.Namespace, Name: d.Name}
		if key.Namespace == "" {
			key.Namespace = run.Namespace
		}
		if len(r.WatchNamespaces) > 0 && !slices.Contains(r.WatchNamespaces, key.Namespace) {
			continue
		}
		dc := &cassdcapi.CassandraDatacenter{}
		if err := r.Get(ctx, key, dc); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("getting CassandraDatacenter %s: %w", key, err)
		}
		o.named[i] = dc
	}
	if len(run.Spec.Schema.Replication.Datacenters) == 0 {
		return nil
	}
	return r.observeCluster(ctx, o)
}

// observeCluster lists the CassandraDatacenters the manager sees, among which are those of
// the run's cluster.
func (r *BenchmarkRunReconciler) observeCluster(ctx context.Context, o *observation) error {
	var list cassdcapi.CassandraDatacenterList
	if err := r.List(ctx, &list); err != nil {
		return fmt.Errorf("listing CassandraDatacenters: %w", err)
	}
	o.clusterDCs = list.Items
	return nil
}
