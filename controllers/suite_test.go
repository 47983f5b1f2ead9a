package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/kube"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"go.uber.org/zap/zapcore"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// These tests run the real manager against a real kube-apiserver and etcd. Nothing runs pods
// there, so the tests play the Job controller and the kubelet (creating pods and writing their
// termination messages and the Jobs' status) and play cass-operator (writing the datacenter's
// status the way v1.31 does).

var env *kube.Env

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(zapLevel())))
	e, stop, err := kube.StartEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	stop()
	os.Exit(code)
}

func zapLevel() zapcore.Level {
	if os.Getenv("CASSBENCH_TEST_VERBOSE") != "" {
		return -2
	}
	return 2
}

const testImage = "cassbench:test"

// manager is a running manager that a test can stop and start again.
type manager struct {
	cancel context.CancelFunc
	done   chan error
}

// startManager runs the manager as a service account bound only to the generated role, so a
// permission the controller needs but the role lacks fails the test.
func startManager(t testing.TB, cfg *rest.Config) *manager {
	t.Helper()
	mgr, err := controllers.NewManager(cfg, controllers.Options{
		MetricsAddr: "0", ProbeAddr: "0", Image: testImage, ProgressInterval: 500 * time.Millisecond,
		SkipNameValidation: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &manager{cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- mgr.Start(ctx) }()
	t.Cleanup(m.stop)
	return m
}

var stopOnce sync.Mutex

func (m *manager) stop() {
	stopOnce.Lock()
	defer stopOnce.Unlock()
	if m.cancel == nil {
		return
	}
	m.cancel()
	<-m.done
	m.cancel = nil
}

// managerConfig is a service-account config bound to config/rbac/role.yaml.
func managerConfig(t testing.TB, ns string) *rest.Config {
	return env.ServiceAccountConfig(t, ns, "cassbench-manager", "config/rbac/role.yaml")
}

// eventually polls f every 100 ms until it returns nil or the timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = f(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}

func getRun(t testing.TB, run *cbv1.BenchmarkRun) *cbv1.BenchmarkRun {
	t.Helper()
	out := &cbv1.BenchmarkRun{}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(run), out); err != nil {
		t.Fatal(err)
	}
	return out
}

func getDC(t testing.TB, dc *cassdcapi.CassandraDatacenter) *cassdcapi.CassandraDatacenter {
	t.Helper()
	out := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(dc), out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitCondition waits until the run's condition has the given status and reason.
func waitCondition(t testing.TB, run *cbv1.BenchmarkRun, condType string, status metav1.ConditionStatus, reason string) *cbv1.BenchmarkRun {
	t.Helper()
	var got *cbv1.BenchmarkRun
	eventually(t, 30*time.Second, fmt.Sprintf("waiting for %s=%s (%s)", condType, status, reason), func() error {
		got = getRun(t, run)
		c := meta.FindStatusCondition(got.Status.Conditions, condType)
		if c == nil {
			return fmt.Errorf("no condition yet; phase %q, conditions %+v", got.Status.Phase, got.Status.Conditions)
		}
		if c.Status != status || (reason != "" && c.Reason != reason) {
			return fmt.Errorf("%s is %s/%s: %s", condType, c.Status, c.Reason, c.Message)
		}
		return nil
	})
	return got
}

func create(t testing.TB, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// playOperatorUntilReady plays cass-operator applying the run's patch: it waits for the spec
// to change, rolls (Updating and RollingRestart True while Ready stays True), then settles.
func playOperatorApplies(t testing.TB, dc *cassdcapi.CassandraDatacenter, fromGeneration int64) {
	t.Helper()
	ctx := context.Background()
	jobsBefore := countJobs(t, dc.Namespace)
	eventually(t, 30*time.Second, "waiting for the run to patch the datacenter", func() error {
		if g := getDC(t, dc).Generation; g <= fromGeneration {
			return fmt.Errorf("generation still %d", g)
		}
		return nil
	})
	if err := kube.SetDatacenterStatus(ctx, env.Client, dc, kube.MarkDatacenterUpdating(dc)); err != nil {
		t.Fatal(err)
	}
	// Give the controller a chance to see Ready=True during the roll and (wrongly) go on.
	time.Sleep(700 * time.Millisecond)
	if n := countJobs(t, dc.Namespace) - jobsBefore; n != 0 {
		t.Fatalf("%d Jobs created while the datacenter was rolling", n)
	}
	settle(t, dc)
}

func settle(t testing.TB, dc *cassdcapi.CassandraDatacenter) {
	t.Helper()
	if err := kube.SetDatacenterStatus(context.Background(), env.Client, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
		kube.MarkDatacenterReady(dc)(s)
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterUpdating, corev1.ConditionFalse, "")
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterRollingRestart, corev1.ConditionFalse, "")
	}); err != nil {
		t.Fatal(err)
	}
}

func countJobs(t testing.TB, ns string) int {
	var jobs batchv1.JobList
	if err := env.Client.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return len(jobs.Items)
}

func waitJob(t testing.TB, ns, name string) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{}
	eventually(t, 30*time.Second, "waiting for Job "+name, func() error {
		return env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, job)
	})
	return job
}

// podResult is what the test, playing the kubelet, makes one pod of a Job end with.
type podResult struct {
	exitCode int32
	message  string
	running  bool
}

// playPods creates a pod per completion index from the Job's template, as the Job controller
// would, and ends each as the kubelet would, with its termination message.
func playPods(t testing.TB, job *batchv1.Job, results map[int32]podResult) {
	t.Helper()
	ctx := context.Background()
	for index, res := range results {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("%s-%d-x", job.Name, index),
				Namespace:   job.Namespace,
				Labels:      map[string]string{},
				Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(int(index))},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job,
					batchv1.SchemeGroupVersion.WithKind("Job"))},
			},
			Spec: *job.Spec.Template.Spec.DeepCopy(),
		}
		for k, v := range job.Spec.Template.Labels {
			pod.Labels[k] = v
		}
		pod.Labels["job-name"] = job.Name
		if err := env.Client.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating pod: %v", err)
		}
		now := metav1.Now()
		status := corev1.ContainerStatus{Name: pod.Spec.Containers[0].Name, Image: testImage, ImageID: testImage}
		pod.Status.Phase = corev1.PodRunning
		if res.running {
			status.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
		} else {
			reason := "Completed"
			pod.Status.Phase = corev1.PodSucceeded
			if res.exitCode != 0 {
				reason, pod.Status.Phase = "Error", corev1.PodFailed
			}
			status.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: res.exitCode, Reason: reason,
				Message: res.message, StartedAt: now, FinishedAt: now}
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{status}
		if err := env.Client.Status().Update(ctx, pod); err != nil {
			t.Fatalf("writing pod status: %v", err)
		}
	}
}

// finishJob writes the Job's final status the way the Job controller of v1.35 does: the
// interim SuccessCriteriaMet or FailureTarget condition, then Complete or Failed.
func finishJob(t testing.TB, job *batchv1.Job, succeeded, failed []int32) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	if job.Status.StartTime == nil {
		start := metav1.NewTime(now.Add(-time.Second))
		job.Status.StartTime = &start
	}
	job.Status.Active = 0
	job.Status.Ready = ptr.To[int32](0)
	job.Status.Terminating = ptr.To[int32](0)
	job.Status.Succeeded = int32(len(succeeded))
	job.Status.Failed = int32(len(failed))
	job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	if indexed {
		job.Status.CompletedIndexes = indexList(succeeded)
		if job.Spec.BackoffLimitPerIndex != nil {
			job.Status.FailedIndexes = ptr.To(indexList(failed))
		}
	}
	interim, final := batchv1.JobSuccessCriteriaMet, batchv1.JobComplete
	reason := batchv1.JobReasonCompletionsReached
	if len(failed) > 0 {
		interim, final = batchv1.JobFailureTarget, batchv1.JobFailed
		reason = batchv1.JobReasonBackoffLimitExceeded
		if indexed && job.Spec.BackoffLimitPerIndex != nil {
			reason = batchv1.JobReasonFailedIndexes
		}
	} else {
		job.Status.CompletionTime = &now
	}
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: interim, Status: corev1.ConditionTrue, Reason: reason, LastProbeTime: now, LastTransitionTime: now},
		{Type: final, Status: corev1.ConditionTrue, Reason: reason, Message: "played by the test", LastProbeTime: now, LastTransitionTime: now},
	}
	if err := env.Client.Status().Update(ctx, job); err != nil {
		t.Fatalf("writing Job status: %v", err)
	}
}

// markJobRunning sets the Job's startTime and active count, as the Job controller does once
// it has created the pods.
func markJobRunning(t testing.TB, job *batchv1.Job, active int32) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		t.Fatal(err)
	}
	start := metav1.Now()
	job.Status.StartTime = &start
	job.Status.Active = active
	job.Status.Ready = ptr.To(active)
	if err := env.Client.Status().Update(ctx, job); err != nil {
		t.Fatalf("writing Job status: %v", err)
	}
}

func indexList(xs []int32) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(int(x))
	}
	return s
}

// setupReport is a setup pod's termination message.
func setupReport(t testing.TB, r summary.SetupReport) string {
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writerSummary is a writer pod's termination message: ok writes at about 1 ms each.
func writerSummary(t testing.TB, index, writers int32, ok int64, errMsg string) string {
	resp, svc := sketch.New(), sketch.New()
	for i := int64(0); i < 1000; i++ {
		resp.Add(float64(800 + i))
		svc.Add(float64(700 + i))
	}
	// Every writer reports the same window, as writers that met at the barrier do.
	start := windowStart
	s := summary.Summary{Index: index, Writers: writers, Start: start, End: start + 10000, Error: errMsg,
		Writes: &summary.Ops{OK: ok, WriteTimeout: 2, Retries: 3, Bytes: ok * 100, Response: resp, Service: svc}}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var errNotYet = errors.New("not yet")

// windowStart is the measured window's start in every played writer summary.
var windowStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
