package controllers

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// Fixtures for TestDecide: a run, its datacenter, its Jobs and pods at a chosen time, and
// what every finished run must show.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	origConfig   = `{"cassandra-yaml":{"concurrent_writes":32}}`
	targetConfig = `{"cassandra-yaml":{"concurrent_writes":64}}`
)

// t1 is when the conditions a row starts from changed.
var t1 = t0.Add(time.Minute)

// aRun is run bench/r on datacenter bench/dc1 asking for 5 nodes and concurrent_writes 64,
// with its finalizer. A row puts it in its state with the builder's presets: Recorded (the run
// holds the datacenter and recorded size 3 and the original config), Patched (the datacenter was
// seen at the target at generation 5), Condition, Deleting.
func aRun() *builders.BenchmarkRunBuilder {
	return builders.MakeBenchmarkRun("r", "bench").Created(t0, "run-uid", 1).Finalizer().Datacenter("dc1").Size(5).
		CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(2).Duration(time.Minute).ReplicationFactor(1)
}

type dcOpt func(*cassdcapi.CassandraDatacenter)

// aDC is datacenter bench/dc1: 3 nodes, the original config, opted in, settled at generation 4.
func aDC(opts ...dcOpt) *cassdcapi.CassandraDatacenter {
	dc := &cassdcapi.CassandraDatacenter{ObjectMeta: metav1.ObjectMeta{Name: "dc1", Namespace: "bench", Generation: 4,
		Annotations: map[string]string{cbv1.AllowBenchmarksAnnotation: "true"}}}
	dc.Spec.ClusterName, dc.Spec.ServerType, dc.Spec.ServerVersion = "c1", "cassandra", "5.0.4"
	dc.Spec.Size, dc.Spec.Config = 3, json.RawMessage(origConfig)
	dc.Status.ObservedGeneration = 4
	dc.Status.CassandraOperatorProgress = cassdcapi.ProgressReady
	dc.Status.Conditions = []cassdcapi.DatacenterCondition{{Type: cassdcapi.DatacenterReady, Status: corev1.ConditionTrue}}
	for _, o := range opts {
		o(dc)
	}
	return dc
}

// k8ssandraManaged labels the datacenter as k8ssandra-operator's K8ssandraCluster "demo" does.
func k8ssandraManaged(dc *cassdcapi.CassandraDatacenter) {
	dc.Labels = builders.MakeDatacenter("", "").K8ssandraCluster("bench", "demo").Obj().Labels
}

func lockedBy(holder string) dcOpt {
	return func(dc *cassdcapi.CassandraDatacenter) { dc.Annotations[cbv1.LockAnnotation] = holder }
}

var (
	mine = lockedBy("bench/r")
	// atTarget: the run's patch landed (generation 5) and cass-operator applied it.
	atTarget = func(dc *cassdcapi.CassandraDatacenter) {
		dc.Spec.Size, dc.Spec.Config, dc.Generation, dc.Status.ObservedGeneration = 5, json.RawMessage(targetConfig), 5, 5
	}
	dcCondition = func(t cassdcapi.DatacenterConditionType) dcOpt {
		return func(dc *cassdcapi.CassandraDatacenter) {
			dc.SetCondition(cassdcapi.DatacenterCondition{Type: t, Status: corev1.ConditionTrue, Message: "pod dc1-r1-sts-4 is Pending"})
		}
	}
)

// job is one of the run's Jobs (controlled by it) or, with foreign, one an earlier run of
// the same name left.
func job(component string, finished, failed, foreign bool) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: jobs.Name("r", component), Namespace: "bench", UID: types.UID(component + "-uid"),
		CreationTimestamp: metav1.NewTime(t0.Add(2 * time.Minute)), Labels: map[string]string{cbv1.ComponentLabel: component}}}
	owner := aRun().Obj()
	if foreign {
		owner.UID = "old-run-uid"
		j.UID += "-old"
	}
	j.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, cbv1.GroupVersion.WithKind("BenchmarkRun"))}
	switch {
	case finished && failed:
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
	case finished:
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	default:
		j.Status.Active = 1
	}
	return j
}

// finishedAt sets when a finished Job reached its final condition.
func finishedAt(j *batchv1.Job, d time.Duration) *batchv1.Job {
	for i := range j.Status.Conditions {
		j.Status.Conditions[i].LastTransitionTime = metav1.NewTime(t0.Add(d))
	}
	return j
}

// pod is a terminated pod of a Job, with its termination message.
func pod(j *batchv1.Job, index int32, exit int32, message string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", j.Name, index), Namespace: "bench", UID: types.UID(fmt.Sprintf("%s-pod-%d", j.UID, index)),
		Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(index)}}}
	p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(j, batchv1.SchemeGroupVersion.WithKind("Job"))}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: j.Labels[cbv1.ComponentLabel], State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: message}}}}
	return p
}

// waiting is a pod of a Job created at t0+created whose container the kubelet keeps waiting
// for reason; reason Unschedulable makes it a pod the scheduler finds no node for.
func waiting(j *batchv1.Job, index int32, created time.Duration, reason, message string) corev1.Pod {
	p := pod(j, index, 0, "")
	p.CreationTimestamp = metav1.NewTime(t0.Add(created))
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	if reason == corev1.PodReasonUnschedulable {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason,
			Message: message, LastTransitionTime: p.CreationTimestamp}}
		return p
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: j.Labels[cbv1.ComponentLabel], State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}}
	return p
}

// observed builds an observation at now = t0 + 5 minutes, with the run at the queue's head.
func observed(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, js ...*batchv1.Job) observation {
	o := observation{run: run, dc: dc, now: t0.Add(5 * time.Minute), image: "cassbench:1", progressInterval: 10 * time.Second,
		podStartGrace: 2 * time.Minute,
		queueHead:     types.NamespacedName{Namespace: "bench", Name: "r"}, queuePosition: 1,
		jobs: map[string]*batchv1.Job{}, pods: map[string][]corev1.Pod{}, foreign: map[string]*batchv1.Job{}}
	for _, j := range js {
		if metav1.IsControlledBy(j, run) {
			o.jobs[j.Labels[cbv1.ComponentLabel]] = j
		} else {
			o.foreign[j.Name] = j
		}
	}
	return o
}

func at(o observation, d time.Duration) observation { o.now = t0.Add(d); return o }

// sweepLock: sweep bench/sw holds the datacenter (restore atEnd).
var sweepLock = lockedBy("sweep:bench/sw")

// lent: the run's controlling sweep bench/sw holds the datacenter and recorded size 3 and the
// original config.
func lent(o observation) observation {
	o.lender = &cbv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Name: "sw", Namespace: "bench", UID: "sweep-uid"},
		Spec: cbv1.BenchmarkSweepSpec{Restore: cbv1.RestoreAtEnd},
		Status: cbv1.BenchmarkSweepStatus{Datacenter: &cbv1.HeldDatacenter{Name: "dc1", Namespace: "bench", OriginalSize: ptr.To[int32](3),
			OriginalConfig: &runtime.RawExtension{Raw: []byte(origConfig)}}}}
	return o
}

func withPods(o observation, component string, pods ...corev1.Pod) observation {
	o.pods[component] = append(o.pods[component], pods...)
	return o
}

// describe says what a datacenter change does, e.g. "size=3 config=... lock=-".
func describe(c *lending.Change) string { return c.String() }

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	b, _ := json.Marshal(v)
	return string(b)
}

func assertEnded(t *testing.T, conds []metav1.Condition) {
	t.Helper()
	if meta.FindStatusCondition(conds, cbv1.ConditionSucceeded) == nil {
		return
	}
	for _, st := range runStages {
		if meta.FindStatusCondition(conds, st) == nil {
			t.Errorf("the run finished without condition %s", st)
		}
	}
	for _, c := range conds {
		if conditions.InProgress(c.Reason) {
			t.Errorf("the run finished with %s=%s/%s, a reason that says it is under way: %s", c.Type, c.Status, c.Reason, c.Message)
		}
	}
}

func equalRuns(a, b *cbv1.BenchmarkRun) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return string(ab) == string(bb)
}

// Only Jobs the run controls are its own, and only pods those Jobs control: a Job and pods
// left by an earlier run of the same name (deleted with --cascade=orphan) are not.
