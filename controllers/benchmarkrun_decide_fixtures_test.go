package controllers

import (
	"encoding/json"
	"fmt"
	"strings"
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
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
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
// with its finalizer, before it took anything.
func aRun() *builders.BenchmarkRunBuilder {
	return builders.MakeBenchmarkRun("r", "bench").Created(t0, "run-uid", 1).Finalizer().Datacenter("dc1").Size(5).
		CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(2).Duration(time.Minute).ReplicationFactor(1)
}

// Presets of the run, each the one before it and one stage further. A row starts from one and
// adds what it is about.

// recorded: the run holds the datacenter and recorded size 3 and the original config.
func recorded() *builders.BenchmarkRunBuilder { return aRun().Recorded(t0, 3, origConfig) }

// ready: recorded, the datacenter seen at the target (generation 5) and ready.
func ready() *builders.BenchmarkRunBuilder {
	return recorded().Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1)
}

// setUp: ready, and setup created the schema.
func setUp() *builders.BenchmarkRunBuilder {
	return ready().Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1)
}

// loaded: set up, and every writer finished and reported.
func loaded() *builders.BenchmarkRunBuilder {
	return setUp().Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1)
}

// failed: the stage's condition says it failed for reason.
func failed(b *builders.BenchmarkRunBuilder, stage, reason string) *builders.BenchmarkRunBuilder {
	return b.Condition(stage, metav1.ConditionFalse, reason, t1)
}

// aDC is datacenter bench/dc1: 3 nodes, the original config, opted in, settled at generation 4.
func aDC() *builders.DatacenterBuilder {
	return builders.MakeDatacenter("dc1", "bench").Cluster("c1").Size(3).Config(origConfig).AllowBenchmarks("true").Ready(4)
}

// ours is aDC locked by the run.
func ours() *builders.DatacenterBuilder { return aDC().LockedBy("bench/r") }

// atTarget: the run's patch landed (generation 5) and cass-operator applied it.
func atTarget(b *builders.DatacenterBuilder) *builders.DatacenterBuilder {
	return b.Size(5).Config(targetConfig).Ready(5)
}

// k8ssandraManaged is aDC as k8ssandra-operator's K8ssandraCluster "demo" labels it.
func k8ssandraManaged() *builders.DatacenterBuilder { return aDC().K8ssandraCluster("bench", "demo") }

// pending is the message cass-operator gives a condition while a pod is pending.
const pending = "pod dc1-r1-sts-4 is Pending"

// sweepLock is the lock of sweep bench/sw (restore atEnd).
const sweepLock = "sweep:bench/sw"

var runKind = cbv1.GroupVersion.WithKind("BenchmarkRun")

// runJob is one of the run's Jobs (controlled by it), created at t0+2m and running until a
// preset says otherwise.
func runJob(component string) *builders.JobBuilder {
	return builders.MakeJob(jobs.Name("r", component), "bench").Label(cbv1.ComponentLabel, component).
		Created(t0.Add(2*time.Minute), types.UID(component+"-uid")).ControlledBy(aRun().Obj(), runKind).Running()
}

// leftBehind is a finished Job with the run's Job name that an earlier run of the same name
// left.
func leftBehind(component string) *builders.JobBuilder {
	earlier := aRun().Obj()
	earlier.UID = "old-run-uid"
	return builders.MakeJob(jobs.Name("r", component), "bench").Label(cbv1.ComponentLabel, component).
		Created(t0.Add(2*time.Minute), types.UID(component+"-uid-old")).ControlledBy(earlier, runKind).Complete(t0)
}

// done is a Job of the run that completed at t0+after.
func done(component string, after time.Duration) *batchv1.Job {
	b := runJob(component)
	b.Status.Active = 0
	return b.Complete(t0.Add(after)).Obj()
}

// failedJob is a Job of the run that failed at t0.
func failedJob(component string) *batchv1.Job {
	b := runJob(component)
	b.Status.Active = 0
	return b.Failed("BackoffLimitExceeded", t0).Obj()
}

// with changes an observation the way no fixture names.
func with(o observation, f func(*observation)) observation { f(&o); return o }

// conds are the conditions a row wants, as pairs of type and "Status/Reason".
func conds(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
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

const (
	dcReadyCond  = cbv1.ConditionDatacenterReady
	schemaCond   = cbv1.ConditionSchemaReady
	writersCond  = cbv1.ConditionWritersComplete
	restoredCond = cbv1.ConditionDatacenterRestored
)

var (
	writerJob, preflightJob, setupJob = runJob(jobs.ComponentWriter).Obj(), runJob(jobs.ComponentPreflight).Obj(), runJob(jobs.ComponentSetup).Obj()
	preflightDone                     = done(jobs.ComponentPreflight, 0)
	suspendedWriter                   = runJob(jobs.ComponentWriter).Suspended().Obj()
	// restored is the one patch that puts size and config back and releases the lock.
	restored = "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-"
)

// renderedConfig is a node pod whose config init container rendered concurrent_writes n.
func renderedConfig(n int) []corev1.Pod {
	p := builders.MakePod("c1-dc1-r1-sts-0", "bench").Obj()
	p.Spec.InitContainers = []corev1.Container{{Name: "server-config-init", Env: []corev1.EnvVar{{Name: "CONFIG_FILE_DATA",
		Value: fmt.Sprintf(`{"cluster-info":{"name":"c1"},"cassandra-yaml":{"concurrent_writes":%d}}`, n)}}}}
	return []corev1.Pod{*p}
}

// messageSays checks that a stage's condition says want.
func messageSays(stage, want string) func(t *testing.T, s step) {
	return func(t *testing.T, s step) {
		if c := meta.FindStatusCondition(s.status.Conditions, stage); c == nil || !strings.Contains(c.Message, want) {
			t.Errorf("%s says %+v, want it to say %q", stage, c, want)
		}
	}
}

// setupReports are what a setup or preflight pod reports: a good one, and a preflight that
// found a setting Cassandra does not have.
func setupReports(t *testing.T) (ok, bad string) {
	return play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 5}),
		play.SetupReport(t, summary.SetupReport{Error: `setting "concurent_writes" is not a Cassandra setting`})
}

// summaryOf is writer index's summary (of 2) with ok operations.
func summaryOf(t *testing.T, index int32, ok int64) string {
	return play.WriterSummary(t, index, 2, ok, "")
}
