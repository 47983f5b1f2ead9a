package jobs

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// ipRun is the run most tests build Jobs for: 24 writers on a node pool of their own.
func ipRun() *cbv1.BenchmarkRun {
	return builders.MakeBenchmarkRun("ip-24", "bench").UID("uid-1").Writers(24).Concurrency(8).Duration(time.Minute).
		NodeSelector(map[string]string{"pool": "load"}).
		Tolerations(corev1.Toleration{Key: "load", Operator: corev1.TolerationOpExists}).Obj()
}

var target = Target{Image: "cassbench:test", Host: "c1-dc1-service.db.svc", Port: 9042,
	CredentialsSecret: "c1-superuser", CassandraDatacenter: "dc1", Nodes: 5}

func env(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			out[e.Name] = "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
			continue
		}
		out[e.Name] = e.Value
	}
	return out
}

func TestWriters(t *testing.T) {
	job, err := Writers(ipRun(), target, 900)
	if err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	got := map[string]any{
		"name":          job.Name,
		"completion":    *s.CompletionMode,
		"completions":   *s.Completions,
		"parallelism":   *s.Parallelism,
		"perIndex":      *s.BackoffLimitPerIndex,
		"maxFailed":     *s.MaxFailedIndexes,
		"deadline":      *s.ActiveDeadlineSeconds,
		"owner":         job.OwnerReferences[0].Kind + "/" + job.OwnerReferences[0].Name,
		"controller":    *job.OwnerReferences[0].Controller,
		"restart":       s.Template.Spec.RestartPolicy,
		"nodeSelector":  s.Template.Spec.NodeSelector["pool"],
		"tolerations":   len(s.Template.Spec.Tolerations),
		"command":       strings.Join(append(s.Template.Spec.Containers[0].Command, s.Template.Spec.Containers[0].Args...), " "),
		"runLabel":      s.Template.Labels[cbv1.RunLabel],
		"componentPods": s.Template.Labels[cbv1.ComponentLabel],
	}
	want := map[string]any{
		"name": "ip-24-writer", "completion": batchv1.IndexedCompletion, "completions": int32(24),
		"parallelism": int32(24), "perIndex": int32(0), "maxFailed": int32(24), "deadline": int64(900),
		"owner": "BenchmarkRun/ip-24", "controller": true, "restart": corev1.RestartPolicyNever,
		"nodeSelector": "load", "tolerations": 1, "command": "/cassbench-writer", "runLabel": "ip-24", "componentPods": "writer",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	e := env(s.Template.Spec.Containers[0])
	for k, v := range map[string]string{
		podenv.Hosts: "c1-dc1-service.db.svc", podenv.Port: "9042", podenv.Writers: "24", podenv.RunID: "uid-1",
		podenv.LocalDatacenter: "dc1", podenv.Username: "secret:c1-superuser/username", podenv.Password: "secret:c1-superuser/password",
	} {
		if e[k] != v {
			t.Errorf("env %s = %q, want %q", k, e[k], v)
		}
	}
	var spec cbv1.BenchmarkRunSpec
	if err := json.Unmarshal([]byte(e[podenv.Spec]), &spec); err != nil || spec.Writers.Replicas != 24 {
		t.Errorf("spec env does not carry the spec: %v %+v", err, spec.Writers)
	}
}

// A writer's CPU limit, rounded down and at least one, is the number of threads it runs on.
func TestWriterThreadsFollowTheCPULimit(t *testing.T) {
	for limit, want := range map[string]string{"": "", "500m": "1", "1": "1", "1500m": "1", "2": "2", "7900m": "7"} {
		run := ipRun()
		run.Spec.Writers.Resources = corev1.ResourceRequirements{}
		if limit != "" {
			run.Spec.Writers.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limit)}
		}
		job, err := Writers(run, target, 0)
		if err != nil {
			t.Fatal(err)
		}
		e := env(job.Spec.Template.Spec.Containers[0])
		if got, set := e["GOMAXPROCS"]; got != want || set != (want != "") {
			t.Errorf("CPU limit %q: GOMAXPROCS %q (set %t), want %q", limit, got, set, want)
		}
	}
}

// Pods run with nothing they do not need: no token, no root, no writable root, no privileges.
func TestPodsAreLockedDown(t *testing.T) {
	setup, err := Setup(ipRun(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	writers, err := Writers(ipRun(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, job := range map[string]*batchv1.Job{"setup": setup, "writers": writers} {
		pod := job.Spec.Template.Spec
		c := pod.Containers[0].SecurityContext
		checks := map[string]bool{
			"no service account token": pod.AutomountServiceAccountToken != nil && !*pod.AutomountServiceAccountToken,
			"non-root pod":             *pod.SecurityContext.RunAsNonRoot,
			"seccomp RuntimeDefault":   pod.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault,
			"read-only root":           *c.ReadOnlyRootFilesystem,
			"no privilege escalation":  !*c.AllowPrivilegeEscalation,
			"all capabilities dropped": cmp.Equal(c.Capabilities.Drop, []corev1.Capability{"ALL"}),
			"termination message file": pod.Containers[0].TerminationMessagePath == podenv.TerminationLog,
		}
		for check, ok := range checks {
			if !ok {
				t.Errorf("%s: %s", name, check)
			}
		}
	}
	if *setup.Spec.BackoffLimit != 0 || env(setup.Spec.Template.Spec.Containers[0])[podenv.ExpectNodes] != "5" {
		t.Errorf("setup: backoff %d, env %v", *setup.Spec.BackoffLimit, env(setup.Spec.Template.Spec.Containers[0]))
	}
	if writers.Spec.ActiveDeadlineSeconds != nil {
		t.Error("a zero deadline set activeDeadlineSeconds")
	}
}

func TestNoCredentialsMeansNoSecretReference(t *testing.T) {
	tg := target
	tg.CredentialsSecret = ""
	job, err := Setup(ipRun(), tg, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := env(job.Spec.Template.Spec.Containers[0])[podenv.Username]; ok {
		t.Error("username env set without a secret")
	}
}

func TestNameFitsALabel(t *testing.T) {
	cases := map[string]string{
		"short":  "run",
		"at 56":  strings.Repeat("a", 56),
		"at 253": strings.Repeat("b", 253),
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			got := Name(run, "writer")
			if len(got) > 63 || !strings.HasSuffix(got, "-writer") {
				t.Errorf("%q (%d)", got, len(got))
			}
			if Name(run, "writer") != got {
				t.Error("not deterministic")
			}
		})
	}
	if Name(strings.Repeat("c", 100)+"x", "setup") == Name(strings.Repeat("c", 100)+"y", "setup") {
		t.Error("long names that differ collide")
	}
}

func TestFinished(t *testing.T) {
	job := func() *builders.JobBuilder { return builders.MakeJob("ip-24-writer", "bench") }
	cases := map[string]struct {
		job               *batchv1.Job
		finished, success bool
	}{
		"running":             {job: job().Obj()},
		"complete":            {job: job().Condition(batchv1.JobComplete, corev1.ConditionTrue).Obj(), finished: true, success: true},
		"failed":              {job: job().Condition(batchv1.JobFailed, corev1.ConditionTrue).Obj(), finished: true},
		"failure target only": {job: job().Condition(batchv1.JobFailureTarget, corev1.ConditionTrue).Obj()},
		"complete False":      {job: job().Condition(batchv1.JobComplete, corev1.ConditionFalse).Obj()},
	}
	for name, tc := range cases {
		if f, s := Finished(tc.job); f != tc.finished || s != tc.success {
			t.Errorf("%s: Finished = %v, %v", name, f, s)
		}
	}
}

func TestTerminatedPodsTakesTheLastPodOfEachIndex(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(name, index string, age time.Duration, exit int32, msg string, running bool) corev1.Pod {
		p := builders.MakePod(name, "bench").Created(t0.Add(-age)).Annotation(batchv1.JobCompletionIndexAnnotation, index)
		if running {
			return *p.Running("writer").Obj()
		}
		return *p.Terminated("writer", exit, "Completed", msg).Obj()
	}
	got := TerminatedPods([]corev1.Pod{
		pod("w-1-new", "1", time.Minute, 0, "second", false),
		pod("w-1-old", "1", time.Hour, 1, "first", false),
		pod("w-0", "0", time.Hour, 0, "zero", false),
		pod("w-2", "2", time.Hour, 0, "", true),
	}, "writer")
	want := map[int32]Terminated{
		0: {Pod: "w-0", Index: 0, Reason: "Completed", Message: "zero"},
		1: {Pod: "w-1-new", Index: 1, Reason: "Completed", Message: "second"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// Setup and preflight learn from the datacenter which keyspaces they may drop and how to
// clear what a drop leaves; writers need neither.
func TestSetupJobsCarryTheKeyspacePolicy(t *testing.T) {
	tg := target
	tg.AllowDropKeyspaces = "bench,bench_*"
	tg.ClearSnapshots = podenv.ClearSnapshotsManagementAPI
	want := map[string]string{podenv.AllowDropKeyspaces: "bench,bench_*", podenv.ClearSnapshots: "management-api"}
	builds := map[string]func(*cbv1.BenchmarkRun, Target, int64) (*batchv1.Job, error){
		"setup": Setup, "preflight": Preflight, "writers": Writers,
	}
	for name, build := range builds {
		job, err := build(ipRun(), tg, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := env(job.Spec.Template.Spec.Containers[0])
		for k, v := range want {
			if name == "writers" {
				if _, ok := got[k]; ok {
					t.Errorf("writers: env %s set", k)
				}
				continue
			}
			if got[k] != v {
				t.Errorf("%s: env %s = %q, want %q", name, k, got[k], v)
			}
		}
	}
	job, err := Setup(ipRun(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if _, ok := env(job.Spec.Template.Spec.Containers[0])[k]; ok {
			t.Errorf("env %s set for a datacenter without it", k)
		}
	}
}

// The pods that cannot start are those the kubelet keeps waiting for a reason it names, or
// the scheduler cannot place; a start under way, a pod that ran, and a pod being deleted are
// not.
func TestNotStartingPods(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	waitingFor := func(name, reason string, init bool) corev1.Pod {
		return *builders.MakePod(name, "bench").Created(created.Time).Phase(corev1.PodPending).Waiting("writer", init, reason, "why").Obj()
	}
	deleted := waitingFor("deleted", "ImagePullBackOff", false)
	deleted.DeletionTimestamp = &created
	failed := waitingFor("failed", "CreateContainerConfigError", false)
	failed.Status.Phase = corev1.PodFailed
	unschedulable := *builders.MakePod("unschedulable", "bench").Created(created.Time).
		Condition(corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonUnschedulable, "0/3 nodes are available", created.Add(time.Minute)).Obj()
	pods := []corev1.Pod{
		waitingFor("creating", "ContainerCreating", false),
		waitingFor("secret", "CreateContainerConfigError", false),
		waitingFor("pull", "ImagePullBackOff", true),
		waitingFor("name", "InvalidImageName", false),
		deleted, failed, unschedulable,
	}
	var got []string
	for _, p := range NotStartingPods(pods) {
		got = append(got, fmt.Sprintf("%s %s retried=%t unschedulable=%t since=%s", p.Pod, p.Reason, p.Retried, p.Unschedulable, p.Since.Format("15:04")))
	}
	want := []string{
		"secret CreateContainerConfigError retried=true unschedulable=false since=00:00",
		"pull ImagePullBackOff retried=true unschedulable=false since=00:00",
		"name InvalidImageName retried=false unschedulable=false since=00:00",
		"unschedulable Unschedulable retried=true unschedulable=true since=00:01",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A Job and its pod template hold their labels apart: a label set on one later (a user's
// policy, a controller adding its own) does not appear on the other.
func TestJobAndPodLabelsAreSeparate(t *testing.T) {
	for name, build := range map[string]func(*cbv1.BenchmarkRun, Target, int64) (*batchv1.Job, error){
		"preflight": Preflight, "setup": Setup, "writers": Writers,
	} {
		job, err := build(ipRun(), target, 0)
		if err != nil {
			t.Fatal(err)
		}
		job.Labels["only-the-job"] = "x"
		if _, ok := job.Spec.Template.Labels["only-the-job"]; ok {
			t.Errorf("%s: a label set on the Job appeared on its pod template", name)
		}
	}
}

// Writer pods run the image's small writer binary, which links no offline admission; setup
// and preflight run cassbench. The commands are binaries the Dockerfile copies
// (test/packaging holds the two together).
func TestPodsRunTheirBinary(t *testing.T) {
	builds := map[string]struct {
		build func(*cbv1.BenchmarkRun, Target, int64) (*batchv1.Job, error)
		want  []string
	}{
		"setup":     {Setup, []string{"/cassbench", "setup"}},
		"preflight": {Preflight, []string{"/cassbench", "setup", "--preflight"}},
		"writers":   {Writers, []string{"/cassbench-writer"}},
	}
	for name, b := range builds {
		job, err := b.build(ipRun(), target, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := job.Spec.Template.Spec.Containers[0]
		if diff := cmp.Diff(b.want, append(slices.Clone(c.Command), c.Args...)); diff != "" {
			t.Errorf("%s: command and args (-want +got):\n%s", name, diff)
		}
	}
}
