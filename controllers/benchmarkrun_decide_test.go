package controllers

import (
	"encoding/json"
	"fmt"
	"sort"
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

// The whole lifecycle of a run, one row per state and per fault: what decide does next.

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
		Status: cbv1.BenchmarkSweepStatus{Datacenter: &cbv1.SweepDatacenterStatus{Name: "dc1", Namespace: "bench", OriginalSize: ptr.To[int32](3),
			HadConfig: true, OriginalConfig: &runtime.RawExtension{Raw: []byte(origConfig)}}}}
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

func TestDecide(t *testing.T) {
	summaryOf := func(index int32, ok int64) string {
		return play.WriterSummary(t, index, 2, ok, "")
	}
	setupOK := play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 5})
	preflightBad := play.SetupReport(t, summary.SetupReport{Error: `setting "concurent_writes" is not a Cassandra setting`})
	writer := job(jobs.ComponentWriter, false, false, false)
	writerDone := job(jobs.ComponentWriter, true, false, false)
	suspended := job(jobs.ComponentWriter, false, false, false)
	suspended.Spec.Suspend, suspended.Status.Active = ptr.To(true), 0
	storedReports := func(run *cbv1.BenchmarkRun) {
		run.Status.WriterReports = []cbv1.WriterReport{{Index: 0, Summary: summaryOf(0, 1000)}, {Index: 1, Summary: summaryOf(1, 2000)}}
	}

	cases := map[string]struct {
		o observation
		// dc is the datacenter change, as describe writes it; empty for none.
		dc string
		// create is the component of the Job to create.
		create string
		// stop lists the Jobs to suspend; deleteForeign the earlier run's Job to delete.
		stop          []string
		deleteForeign string
		// conds are conditions the new status must have, as "Status/Reason".
		conds                         map[string]string
		addFinalizer, removeFinalizer bool
		requeue                       bool
		check                         func(t *testing.T, s step)
	}{
		// Finding and taking the datacenter.
		"new run: finalizer, then the lock": {o: observed(aRun().Apply(func(run *cbv1.BenchmarkRun) { run.Finalizers = nil }).Obj(), aDC()), addFinalizer: true, dc: "lock=bench/r",
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		"datacenter missing": {o: observed(aRun().Obj(), nil), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterNotFound"}},
		"datacenter missing past the deadline": {o: at(observed(aRun().Obj(), nil), 31*time.Minute),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PrepareDeadlineExceeded"}},
		"datacenter in a namespace the manager does not watch": {o: func() observation { o := observed(aRun().Obj(), nil); o.notWatched = true; return o }(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/InvalidSpec"}},
		"datacenter not opted in": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Annotations = nil })), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterNotOptedIn"}},
		"held by a live run": {o: func() observation {
			o := observed(aRun().Obj(), aDC(lockedBy("bench/other")))
			o.holderAlive = true
			return o
		}(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterBusy"}},
		"a stale lock (its run gone or finished) is taken": {o: observed(aRun().Obj(), aDC(lockedBy("bench/gone"))), dc: "lock=bench/r"},
		"queued behind an older run": {o: func() observation {
			o := observed(aRun().Obj(), aDC())
			o.queueHead.Name = "older"
			o.queuePosition = 2
			return o
		}(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterBusy"}},

		// Refusing what cannot work, before the datacenter is touched.
		"an image the manager may not run": {o: observed(aRun().Image("evil.example/x:1").Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/ImageNotAllowed"}},
		"an allowed image": {o: func() observation {
			o := observed(aRun().Image("registry.example/cassbench:2").Obj(), aDC())
			o.allowedImages = []string{"registry.example/cassbench:*"}
			return o
		}(), dc: "lock=bench/r"},
		"a stopped datacenter": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Stopped = true })),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"config tuning on a configSecret datacenter": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ConfigSecret = "cfg" })),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"size below the rack count": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) {
			dc.Spec.Racks = []cassdcapi.Rack{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}
		})), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"replication factor above the run's size": {o: observed(aRun().ReplicationFactor(7).Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"JVM options a Cassandra 3.11 datacenter refuses": {o: observed(aRun().Apply(func(r *cbv1.BenchmarkRun) {
			r.Spec.Datacenter.Config.JvmServerOptions = &runtime.RawExtension{Raw: []byte(`{"max_heap_size":"8G"}`)}
		}).Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ServerVersion = "3.11.17" })),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"a size and config change on a K8ssandraCluster's datacenter": {o: observed(aRun().Obj(), aDC(k8ssandraManaged)),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterManagedByK8ssandra"}},
		"what a K8ssandraCluster's datacenter has: taken as any": {o: observed(aRun().Size(3).CassandraYaml(map[string]any{"concurrent_writes": 32}).Obj(),
			aDC(k8ssandraManaged)), dc: "lock=bench/r"},

		"free-form JVM flags from another namespace": {o: func() observation {
			run := aRun().Apply(func(r *cbv1.BenchmarkRun) {
				r.Namespace = "team-b"
				r.Spec.DatacenterRef.Namespace = "bench"
				r.Spec.Connection = &cbv1.ConnectionSpec{CredentialsSecretRef: &corev1.LocalObjectReference{Name: "mine"}}
				r.Spec.Datacenter.Config.JvmServerOptions = &runtime.RawExtension{Raw: []byte(`{"additional-jvm-opts":["-javaagent:/x.jar"]}`)}
			}).Obj()
			o := observed(run, aDC(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Annotations[cbv1.AllowBenchmarksAnnotation] = "bench,team-b"
			}))
			o.queueHead = types.NamespacedName{Namespace: "team-b", Name: "r"}
			return o
		}(), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/SettingNotAllowed"}},

		// Recording, checking, patching.
		"locked: the originals are recorded before any change": {o: observed(aRun().Obj(), aDC(mine)),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st == nil || *st.OriginalSize != 3 || compact(st.OriginalConfig.Raw) != compact(json.RawMessage(origConfig)) || s.status.StartTime == nil {
					t.Errorf("originals not recorded: %+v", st)
				}
			}},
		"recorded: the settings are checked first": {o: observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine)), create: jobs.ComponentPreflight,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/CheckingSettings"}},
		"a setting does not exist": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine), job(jobs.ComponentPreflight, true, true, false)),
			jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, true, false), 0, 1, preflightBad)),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/SettingsInvalid"}},
		"settings exist: size and config are patched": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine), job(jobs.ComponentPreflight, true, false, false)),
			jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, false, false), 0, 0, setupOK)),
			dc: "size=5 config=" + compact(json.RawMessage(targetConfig))},
		"cass-operator is scaling: the size waits": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine, dcCondition(cassdcapi.DatacenterScalingUp)), job(jobs.ComponentPreflight, true, false, false)),
			jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, false, false), 0, 0, setupOK)), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		"the previous run's restore still rolls: the settings are checked only after it": {o: observed(aRun().Recorded(t0, 3, origConfig).Obj(),
			aDC(mine, dcCondition(cassdcapi.DatacenterRollingRestart), func(dc *cassdcapi.CassandraDatacenter) {
				dc.Status.CassandraOperatorProgress = cassdcapi.ProgressUpdating
			})), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		"crash after the patch: the datacenter at the target is recorded, not patched again": {o: observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine, atTarget)),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st.PatchedGeneration != 5 || !st.Changed || st.Size != 5 {
					t.Errorf("patch not recorded from state: %+v", st)
				}
			}},
		"waiting for cass-operator to apply the patch": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Status.ObservedGeneration = 4 })),
			requeue: true, conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		// cass-operator v1.31.0 can write the run's generation as observed from a reconcile
		// that read the datacenter before the patch, and then hold the StatefulSet back: every
		// condition says ready while the pods run the earlier config. The pods' rendered config
		// keeps the run waiting, and the run lets cass-operator roll the change out.
		"ready by its status while the pods run the earlier config": {o: func() observation {
			o := observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget))
			o.dcPods = []corev1.Pod{*builders.MakePod("c1-dc1-r1-sts-0", "bench").Obj()}
			o.dcPods[0].Spec.InitContainers = []corev1.Container{{Name: "server-config-init", Env: []corev1.EnvVar{
				{Name: "CONFIG_FILE_DATA", Value: `{"cluster-info":{"name":"c1"},"cassandra-yaml":{"concurrent_writes":32}}`}}}}
			return o
		}(), requeue: true, dc: "autoupdate=once", conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, "c1-dc1-r1-sts-0 (its config has cassandra-yaml.concurrent_writes 32, the datacenter's spec sets 64)") {
					t.Errorf("message %q does not name the stale pod", c.Message)
				}
			}},
		"ready by its status and rolled out": {o: func() observation {
			o := observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget))
			o.dcPods = []corev1.Pod{*builders.MakePod("c1-dc1-r1-sts-0", "bench").Obj()}
			o.dcPods[0].Spec.InitContainers = []corev1.Container{{Name: "server-config-init", Env: []corev1.EnvVar{
				{Name: "CONFIG_FILE_DATA", Value: `{"cluster-info":{"name":"c1"},"cassandra-yaml":{"concurrent_writes":64}}`}}}}
			return o
		}(), create: "setup", conds: map[string]string{cbv1.ConditionDatacenterReady: "True/DatacenterReady"}},
		"cass-operator never finishes: the prepare deadline": {o: at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterUpdating))), 31*time.Minute),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PrepareDeadlineExceeded"}},
		"a node refuses its config: the prepare deadline names the pod": {o: func() observation {
			o := at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterUpdating))), 31*time.Minute)
			o.dcPendingPods = []string{"c1-dc1-r1-sts-0 (Running; container cassandra running, not ready)"}
			return o
		}(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PrepareDeadlineExceeded"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, "pods not ready: c1-dc1-r1-sts-0 (Running; container cassandra running, not ready)") {
					t.Errorf("the deadline does not name the pod that is not ready: %s", c.Message)
				}
			}},
		"cass-operator marks the datacenter invalid": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) {
			dc.SetCondition(cassdcapi.DatacenterCondition{Type: cassdcapi.DatacenterValid, Status: corev1.ConditionFalse, Message: "bad"})
		})), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterInvalid"}},
		"ready: setup starts": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget)), create: jobs.ComponentSetup,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "True/DatacenterReady", cbv1.ConditionSchemaReady: "False/SetupRunning"}},

		"setup finished, its pod not seen yet: wait for it, not fail": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Obj(), aDC(mine, atTarget), finishedAt(job(jobs.ComponentSetup, true, false, false), 4*time.Minute+50*time.Second)),
			requeue: true, conds: map[string]string{cbv1.ConditionSchemaReady: "False/SetupRunning"}},
		"setup finished long ago without a report: failed": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Obj(), aDC(mine, atTarget), finishedAt(job(jobs.ComponentSetup, true, false, false), time.Minute)),
			conds: map[string]string{cbv1.ConditionSchemaReady: "False/SetupFailed"}},

		// After ready: readiness no longer gates, drift fails the run.
		"a rolling restart after ready does not fail the run": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Apply(func(r *cbv1.BenchmarkRun) {
			r.Spec.Deadlines.Prepare = &metav1.Duration{Duration: time.Minute}
		}).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterRollingRestart)), writer),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "True/DatacenterReady", cbv1.ConditionWritersComplete: "False/WritersRunning"}, requeue: true},
		"someone changes the size mid-run: drift": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Size, dc.Generation = 3, 6 }), writer),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterDrifted"}},
		"someone changes the spec mid-run: drift": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Generation = 6 }), writer),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterDrifted"}},

		// Ownership and results.
		"a Job left by an earlier run of the same name is deleted, not adopted": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), job(jobs.ComponentWriter, true, false, true)),
			deleteForeign: jobs.Name("r", jobs.ComponentWriter)},
		"a preflight pod that reads a missing Secret: named while the grace runs": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine),
			job(jobs.ComponentPreflight, false, false, false)), jobs.ComponentPreflight,
			waiting(job(jobs.ComponentPreflight, false, false, false), 0, 4*time.Minute, "CreateContainerConfigError", `secret "creds" not found`)),
			requeue: true, conds: map[string]string{cbv1.ConditionDatacenterReady: "False/CheckingSettings"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, `CreateContainerConfigError: secret "creds" not found`) {
					t.Errorf("the waiting message does not say why the pod does not start: %s", c.Message)
				}
				// The pod was created at t0+4m with a grace of 2m: look again at t0+6m.
				if s.requeueAfter > time.Minute+2*time.Second {
					t.Errorf("requeue after %s, want at the grace's end (1m)", s.requeueAfter)
				}
			}},
		"a preflight pod that reads a missing Secret: failed after the grace, the datacenter untouched": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine),
			job(jobs.ComponentPreflight, false, false, false)), jobs.ComponentPreflight,
			waiting(job(jobs.ComponentPreflight, false, false, false), 0, 2*time.Minute, "CreateContainerConfigError", `secret "creds" not found`)),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PodsNotStarting"}},
		"failed for a pod that did not start: the writers stop first": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, "False", cbv1.ReasonPodsNotStarting, t1).Obj(), aDC(mine, atTarget), writer),
			stop: []string{writer.Name}, requeue: true},
		"a setup pod whose image name is invalid: failed at once": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Obj(), aDC(mine, atTarget),
			job(jobs.ComponentSetup, false, false, false)), jobs.ComponentSetup,
			waiting(job(jobs.ComponentSetup, false, false, false), 0, 5*time.Minute, "InvalidImageName", `invalid reference format`)),
			conds: map[string]string{cbv1.ConditionSchemaReady: "False/PodsNotStarting"}},
		"an unschedulable writer is named, and left to the deadlines": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer),
			jobs.ComponentWriter, waiting(writer, 1, 0, corev1.PodReasonUnschedulable, "0/3 nodes are available: 3 Insufficient cpu")),
			requeue: true, conds: map[string]string{cbv1.ConditionWritersComplete: "False/WritersRunning"},
			check: func(t *testing.T, s step) {
				if c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionWritersComplete); !strings.Contains(c.Message, "Insufficient cpu") {
					t.Errorf("the message does not name the unschedulable pod: %s", c.Message)
				}
			}},
		"a writer whose image cannot be pulled: failed after the grace, the reported results kept": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer),
			jobs.ComponentWriter, pod(writer, 0, 0, summaryOf(0, 1000)), waiting(writer, 1, 2*time.Minute, "ImagePullBackOff", `Back-off pulling image "cassbench:1"`)),
			conds: map[string]string{cbv1.ConditionWritersComplete: "False/PodsNotStarting"},
			check: func(t *testing.T, s step) {
				if s.status.Results == nil || s.status.Results.Operations != 1000 {
					t.Errorf("the reported writer's results were not kept: %+v", s.status.Results)
				}
			}},
		"a writer's report is stored the first time it is read": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer),
			jobs.ComponentWriter, pod(writer, 0, 0, summaryOf(0, 1000))), requeue: true,
			check: func(t *testing.T, s step) {
				if len(s.status.WriterReports) != 1 || s.status.WriterReports[0].PodUID == "" || s.status.Results == nil || s.status.Results.Operations != 1000 {
					t.Errorf("report not stored: %+v results %+v", s.status.WriterReports, s.status.Results)
				}
			}},
		"stored reports survive their pods": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Apply(storedReports).Obj(), aDC(mine, atTarget), writerDone),
			conds: map[string]string{cbv1.ConditionWritersComplete: "True/WritersSucceeded"},
			check: func(t *testing.T, s step) {
				if s.status.Results == nil || s.status.Results.Operations != 3000 {
					t.Errorf("results %+v", s.status.Results)
				}
			}},
		"writers past the run deadline": {o: at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer), 2*time.Hour),
			conds: map[string]string{cbv1.ConditionWritersComplete: "False/RunDeadlineExceeded"}},

		// Giving back.
		"success: restore and release in one patch": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(mine, atTarget), writerDone),
			dc:    "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"failure with writers running: they stop before anything is released": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget), writer),
			stop: []string{writer.Name}, requeue: true, conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/StoppingJobs"},
			check: func(t *testing.T, s step) {
				if meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionSucceeded) != nil {
					t.Error("finished before the writers stopped")
				}
			}},
		"failure, writers stopped: restore and release": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget), suspended),
			dc:    "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "False/WriterFailed"}},
		"restore while cass-operator scales: the config now, the size later": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterScalingUp))),
			dc: "config=" + compact(json.RawMessage(origConfig)), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/Restoring"}},
		"restore still blocked at the deadline: RestoreStuck, released": {o: func() observation {
			o := at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterScalingUp))), time.Hour)
			o.dcPendingPods = []string{"c1-dc1-r1-sts-4 (Pending: 0/3 nodes are available: insufficient cpu)"}
			return o
		}(),
			dc:    "config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/RestoreStuck", cbv1.ConditionSucceeded: "False/WriterFailed"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterRestored)
				if !strings.Contains(c.Message, "dc1-r1-sts-4 is Pending") || !strings.Contains(c.Message, "c1-dc1-r1-sts-4 (Pending: 0/3 nodes") ||
					!strings.Contains(c.Message, "spec.size back to 3") {
					t.Errorf("RestoreStuck does not say what is pending and what to do: %s", c.Message)
				}
			}},
		"released earlier but the status write was lost": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"crash after the patch, then a failure: restored from state": {o: observed(aRun().Recorded(t0, 3, origConfig).Condition(cbv1.ConditionDatacenterReady, "False", cbv1.ReasonPrepareDeadlineExceeded, t1).Obj(), aDC(mine, atTarget)),
			dc:    "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored"}},
		"the lock was taken by another run before the restore": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(lockedBy("bench/other"), atTarget)),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/LockLost"}},
		"someone else's size is left, the run's config restored": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Size = 7 })),
			dc:    "config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/DatacenterDrifted", cbv1.ConditionSucceeded: "True/Succeeded"}},
		// A sweep with restore atEnd lends its datacenter to its own runs.
		"lent by its sweep: no lock taken, the sweep's originals recorded": {o: lent(observed(aRun().Obj(), aDC(sweepLock, atTarget))),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st == nil || *st.OriginalSize != 3 || compact(st.OriginalConfig.Raw) != compact(json.RawMessage(origConfig)) || s.dc != nil {
					t.Errorf("want the sweep's originals (3, %s) and no change; got %+v, change %q", origConfig, st, describe(s.dc))
				}
			}},
		"lent, and the previous point left the datacenter at this point's target: nothing patched, nothing checked": {
			o: lent(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(sweepLock, atTarget))),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st.PatchedGeneration != 5 || !st.Changed {
					t.Errorf("the datacenter at the target is not taken as patched: %+v", st)
				}
			}},
		"lent, and this point changes only the size: its target keeps the config the datacenter has, so the merge patch carries only the size": {
			o: lent(withPods(observed(aRun().Recorded(t0, 3, origConfig).Size(4).Obj(),
				aDC(sweepLock, atTarget), job(jobs.ComponentPreflight, true, false, false)),
				jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, false, false), 0, 0, setupOK))),
			dc: "size=4 config=" + compact(json.RawMessage(targetConfig))},
		"lent, writers done: the datacenter is left to the sweep, locked": {o: lent(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(sweepLock, atTarget))),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/HeldBySweep", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"lent, deleted: Jobs stopped, the datacenter left to the sweep": {o: lent(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Deleting(t0.Add(time.Hour)).Obj(), aDC(sweepLock, atTarget), writer)),
			stop: []string{"r-writer"}, requeue: true, conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/StoppingJobs"}},
		"a sweep's lock held for another sweep's runs: busy": {o: func() observation {
			o := observed(aRun().Obj(), aDC(sweepLock))
			o.holderAlive = true
			return o
		}(), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterBusy"},
			check: func(t *testing.T, s step) {
				if c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady); !strings.Contains(c.Message, "BenchmarkSweep bench/sw") {
					t.Errorf("the busy message does not name the sweep: %s", c.Message)
				}
			}},
		"keepChanges: released, not restored": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).KeepChanges().Obj(), aDC(mine, atTarget)),
			dc: "lock=-", conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/KeptChanges"}},
		"the restore was refused: released, named": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Condition(cbv1.ConditionDatacenterRestored, "False", cbv1.ReasonRefused, t1).Obj(), aDC(mine, atTarget)),
			dc: "lock=-", conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/Refused", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"failed before taking the datacenter: nothing to give back, the later stages not reached": {o: observed(aRun().Condition(cbv1.ConditionDatacenterReady, "False", cbv1.ReasonImageNotAllowed, t1).Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/NothingToRestore", cbv1.ConditionSucceeded: "False/ImageNotAllowed",
				cbv1.ConditionSchemaReady: "False/NotReached", cbv1.ConditionWritersComplete: "False/NotReached"}},
		// The apiserver refused the writer Job in the pass that saw setup finish; the refusal
		// keeps the status that pass read, whose SchemaReady still said the setup was running.
		"the writer Job was refused: the stage left mid-way says it was stopped": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Apply(func(r *cbv1.BenchmarkRun) {
			meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: cbv1.ConditionSchemaReady, Status: metav1.ConditionFalse,
				Reason: cbv1.ReasonSetupRunning, Message: "Job r-setup is verifying settings and creating the schema"})
		}).Condition(cbv1.ConditionWritersComplete, "False", cbv1.ReasonRefused, t1).Obj(), aDC(mine, atTarget), job(jobs.ComponentSetup, true, false, false)),
			dc: "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionSchemaReady: "False/Stopped", cbv1.ConditionWritersComplete: "False/Refused",
				cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "False/Refused"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionSchemaReady)
				if want := "stopped when the run failed (Refused; see condition Succeeded); it was at: Job r-setup is verifying"; !strings.HasPrefix(c.Message, want) {
					t.Errorf("SchemaReady says %q, want it to start %q", c.Message, want)
				}
			}},
		"locked, then failed before recording: the lock is released": {o: observed(aRun().Condition(cbv1.ConditionDatacenterReady, "False", cbv1.ReasonRefused, t1).Obj(), aDC(mine)),
			dc: "lock=-", conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/NothingToRestore"}},
		"deleted mid-run: writers stop first": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Deleting(t0.Add(time.Hour)).Obj(), aDC(mine, atTarget), writer),
			stop: []string{writer.Name}, requeue: true},
		"deleted mid-run, writers stopped: given back, finalizer removed": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Deleting(t0.Add(time.Hour)).Obj(), aDC(mine, atTarget), suspended),
			dc: "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-", removeFinalizer: true},
		"deleted after its datacenter": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Deleting(t0.Add(time.Hour)).Obj(), nil), removeFinalizer: true,
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/NothingToRestore"}},
		"finished: the finalizer goes": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Condition(cbv1.ConditionDatacenterRestored, "True", cbv1.ReasonRestored, t1).Condition(cbv1.ConditionSucceeded, "True", cbv1.ReasonSucceeded, t1).Obj(), aDC()),
			removeFinalizer: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := tc.o.run.DeepCopy()
			s := decide(tc.o)
			if !equalRuns(before, tc.o.run) {
				t.Fatal("decide changed the observed run")
			}
			if got := describe(s.dc); got != tc.dc {
				t.Errorf("datacenter change %q, want %q", got, tc.dc)
			}
			created := ""
			if s.create != nil {
				created = s.create.Labels[cbv1.ComponentLabel]
			}
			if created != tc.create {
				t.Errorf("creates %q, want %q", created, tc.create)
			}
			var stopped []string
			for _, j := range s.stop {
				stopped = append(stopped, j.Name)
			}
			if strings.Join(stopped, ",") != strings.Join(tc.stop, ",") {
				t.Errorf("stops %v, want %v", stopped, tc.stop)
			}
			deleted := ""
			if s.deleteForeign != nil {
				deleted = s.deleteForeign.Name
			}
			if deleted != tc.deleteForeign {
				t.Errorf("deletes %q, want %q", deleted, tc.deleteForeign)
			}
			if s.addFinalizer != tc.addFinalizer || s.removeFinalizer != tc.removeFinalizer {
				t.Errorf("finalizer add %t remove %t, want %t %t", s.addFinalizer, s.removeFinalizer, tc.addFinalizer, tc.removeFinalizer)
			}
			if (s.requeueAfter > 0) != tc.requeue {
				t.Errorf("requeue after %s, want requeue %t", s.requeueAfter, tc.requeue)
			}
			var got []string
			for ct, want := range tc.conds {
				c := meta.FindStatusCondition(s.status.Conditions, ct)
				if c == nil {
					got = append(got, fmt.Sprintf("%s missing, want %s", ct, want))
				} else if g := string(c.Status) + "/" + c.Reason; g != want {
					got = append(got, fmt.Sprintf("%s is %s (%s), want %s", ct, g, c.Message, want))
				}
			}
			sort.Strings(got)
			for _, g := range got {
				t.Error(g)
			}
			assertEnded(t, s.status.Conditions)
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

// assertEnded holds a finished run to telling how each stage ended: every stage has its
// condition, and none keeps a reason that says it is under way.
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
func TestOwnedIgnoresAnEarlierRunsJobsAndPods(t *testing.T) {
	run := aRun().Obj()
	mineJob, oldJob := job(jobs.ComponentWriter, false, false, false), job(jobs.ComponentSetup, true, false, true)
	oldWriter := job(jobs.ComponentWriter, true, false, true)
	stray := pod(mineJob, 1, 0, "")
	stray.OwnerReferences = nil
	own, foreign, pods := owned(run, []batchv1.Job{*mineJob, *oldJob},
		[]corev1.Pod{pod(mineJob, 0, 0, "mine"), pod(oldWriter, 1, 0, "old"), pod(oldJob, 0, 0, "old"), stray})
	if len(own) != 1 || own[jobs.ComponentWriter] == nil || own[jobs.ComponentWriter].UID != mineJob.UID {
		t.Errorf("own Jobs %v", own)
	}
	if len(foreign) != 1 || foreign[oldJob.Name] == nil {
		t.Errorf("foreign Jobs %v", foreign)
	}
	if got := pods[jobs.ComponentWriter]; len(got) != 1 || got[0].Status.ContainerStatuses[0].State.Terminated.Message != "mine" {
		t.Errorf("writer pods %+v", got)
	}
	if len(pods[jobs.ComponentSetup]) != 0 {
		t.Errorf("read the earlier run's setup pod")
	}
}

func TestNotReadyNamesPendingPods(t *testing.T) {
	ready := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sts-0"}}
	ready.Status.Phase = corev1.PodRunning
	ready.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	pending := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sts-4"}}
	pending.Status.Phase = corev1.PodPending
	pending.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Message: "0/3 nodes are available"}}
	starting := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sts-3"}}
	starting.Status.Phase = corev1.PodRunning
	// Cassandra refused its config: the management API runs, the node does not, and the
	// container restarted after its liveness probe failed.
	refused := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sts-1"}}
	refused.Status.Phase = corev1.PodRunning
	refused.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "server-config-init", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}}
	refused.Status.ContainerStatuses = []corev1.ContainerStatus{
		{Name: "cassandra", RestartCount: 2, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 143, Message: "liveness probe failed\n"}}},
		{Name: "server-system-logger", Ready: true},
	}
	badInit := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sts-2"}}
	badInit.Status.Phase = corev1.PodPending
	badInit.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "server-config-init",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s"}}}}
	got := notReady([]corev1.Pod{ready, pending, starting, refused, badInit})
	want := []string{
		"sts-1 (Running; container cassandra running, not ready, last terminated: Error (exit code 143): liveness probe failed, restarted 2 times)",
		"sts-2 (Pending; container server-config-init waiting: CrashLoopBackOff: back-off 20s)",
		"sts-3 (Running)", "sts-4 (Pending: 0/3 nodes are available)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("notReady = %q, want %q", got, want)
	}
}

// Setup learns from the datacenter which keyspaces it may drop, and clears what a drop leaves
// through the management API unless the datacenter asks for mutual TLS there.
