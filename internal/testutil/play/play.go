// Package play lets integration tests play the parts of a cluster that envtest does not run:
// cass-operator (the datacenter's status as v1.31 writes it), the Job controller (pods and Job
// status) and the kubelet (container states and termination messages).
package play

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// Image is the image the played pods report running.
const Image = "cassbench:test"

// Player plays through an admin client.
type Player struct{ C client.Client }

// Eventually polls f every 100 ms until it returns nil or the timeout passes.
func Eventually(tb testing.TB, timeout time.Duration, what string, f func() error) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = f(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.Fatalf("%s: %v", what, err)
}

// Create creates objects, failing the test on any error.
func (p Player) Create(tb testing.TB, objs ...client.Object) {
	tb.Helper()
	for _, o := range objs {
		if err := p.C.Create(context.Background(), o); err != nil {
			tb.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// Run reads a run afresh.
func (p Player) Run(tb testing.TB, run *cbv1.BenchmarkRun) *cbv1.BenchmarkRun {
	tb.Helper()
	out := &cbv1.BenchmarkRun{}
	if err := p.C.Get(context.Background(), client.ObjectKeyFromObject(run), out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Datacenter reads a datacenter afresh.
func (p Player) Datacenter(tb testing.TB, dc *cassdcapi.CassandraDatacenter) *cassdcapi.CassandraDatacenter {
	tb.Helper()
	out := &cassdcapi.CassandraDatacenter{}
	if err := p.C.Get(context.Background(), client.ObjectKeyFromObject(dc), out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// WaitCondition waits until the run's condition has the given status and, if not empty,
// reason.
func (p Player) WaitCondition(tb testing.TB, run *cbv1.BenchmarkRun, condType string, status metav1.ConditionStatus, reason string) *cbv1.BenchmarkRun {
	tb.Helper()
	var got *cbv1.BenchmarkRun
	Eventually(tb, 30*time.Second, fmt.Sprintf("waiting for %s=%s (%s)", condType, status, reason), func() error {
		got = p.Run(tb, run)
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

// OperatorApplies plays cass-operator applying a run's patch: it waits for the spec to
// change, rolls (Updating and RollingRestart True while Ready stays True), checks the run did
// not start anything during the roll, then settles.
func (p Player) OperatorApplies(tb testing.TB, dc *cassdcapi.CassandraDatacenter, fromGeneration int64) {
	tb.Helper()
	jobsBefore := p.CountJobs(tb, dc.Namespace)
	Eventually(tb, 30*time.Second, "waiting for the run to patch the datacenter", func() error {
		if g := p.Datacenter(tb, dc).Generation; g <= fromGeneration {
			return fmt.Errorf("generation still %d", g)
		}
		return nil
	})
	if err := kube.SetDatacenterStatus(context.Background(), p.C, dc, kube.MarkDatacenterUpdating(dc)); err != nil {
		tb.Fatal(err)
	}
	// Give the controller a chance to see Ready=True during the roll and (wrongly) go on.
	time.Sleep(700 * time.Millisecond)
	if n := p.CountJobs(tb, dc.Namespace) - jobsBefore; n != 0 {
		tb.Fatalf("%d Jobs created while the datacenter was rolling", n)
	}
	p.Settle(tb, dc)
}

// Settle makes the datacenter look as cass-operator leaves it after a finished reconcile.
func (p Player) Settle(tb testing.TB, dc *cassdcapi.CassandraDatacenter) {
	tb.Helper()
	if err := kube.SetDatacenterStatus(context.Background(), p.C, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
		kube.MarkDatacenterReady(dc)(s)
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterUpdating, corev1.ConditionFalse, "")
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterRollingRestart, corev1.ConditionFalse, "")
	}); err != nil {
		tb.Fatal(err)
	}
}

// CountJobs counts the Jobs of a namespace.
func (p Player) CountJobs(tb testing.TB, ns string) int {
	tb.Helper()
	var jobs batchv1.JobList
	if err := p.C.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
		tb.Fatal(err)
	}
	return len(jobs.Items)
}

// WaitJob waits for a Job to exist.
func (p Player) WaitJob(tb testing.TB, ns, name string) *batchv1.Job {
	tb.Helper()
	job := &batchv1.Job{}
	Eventually(tb, 30*time.Second, "waiting for Job "+name, func() error {
		return p.C.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, job)
	})
	return job
}

// PodResult is what one pod of a Job ends with (or that it is still running).
type PodResult struct {
	ExitCode int32
	Message  string
	Running  bool
}

// Pods creates a pod per completion index from the Job's template, as the Job controller
// would, and sets each one's state as the kubelet would, with its termination message.
func (p Player) Pods(tb testing.TB, job *batchv1.Job, results map[int32]PodResult) {
	tb.Helper()
	ctx := context.Background()
	for index, res := range results {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("%s-%d-%.5s", job.Name, index, job.UID),
				Namespace:   job.Namespace,
				Labels:      map[string]string{"job-name": job.Name},
				Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(int(index))},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job,
					batchv1.SchemeGroupVersion.WithKind("Job"))},
			},
			Spec: *job.Spec.Template.Spec.DeepCopy(),
		}
		for k, v := range job.Spec.Template.Labels {
			pod.Labels[k] = v
		}
		if err := p.C.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			tb.Fatalf("creating pod: %v", err)
		}
		now := metav1.Now()
		status := corev1.ContainerStatus{Name: pod.Spec.Containers[0].Name, Image: Image, ImageID: Image}
		pod.Status.Phase = corev1.PodRunning
		if res.Running {
			status.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
		} else {
			reason := "Completed"
			pod.Status.Phase = corev1.PodSucceeded
			if res.ExitCode != 0 {
				reason, pod.Status.Phase = "Error", corev1.PodFailed
			}
			status.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: res.ExitCode, Reason: reason,
				Message: res.Message, StartedAt: now, FinishedAt: now}
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{status}
		if err := p.C.Status().Update(ctx, pod); err != nil {
			tb.Fatalf("writing pod status: %v", err)
		}
	}
}

// FinishJob writes the Job's final status the way the Job controller of v1.35 does: the
// interim SuccessCriteriaMet or FailureTarget condition, then Complete or Failed.
func (p Player) FinishJob(tb testing.TB, job *batchv1.Job, succeeded, failed []int32) {
	tb.Helper()
	ctx := context.Background()
	if err := p.C.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		tb.Fatal(err)
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
	if err := p.C.Status().Update(ctx, job); err != nil {
		tb.Fatalf("writing Job status: %v", err)
	}
}

// JobRunning sets the Job's startTime and active count, as the Job controller does once it
// has created the pods.
func (p Player) JobRunning(tb testing.TB, job *batchv1.Job, active int32) {
	tb.Helper()
	ctx := context.Background()
	if err := p.C.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		tb.Fatal(err)
	}
	start := metav1.Now()
	job.Status.StartTime = &start
	job.Status.Active = active
	job.Status.Ready = ptr.To(active)
	if err := p.C.Status().Update(ctx, job); err != nil {
		tb.Fatalf("writing Job status: %v", err)
	}
}

func indexList(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(int(x))
	}
	return strings.Join(parts, ",")
}

// SetupReport is a setup pod's termination message.
func SetupReport(tb testing.TB, r summary.SetupReport) string {
	tb.Helper()
	b, err := r.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// WindowStart is the measured window's start in every played writer summary: writers that
// met at the barrier report the same window.
var WindowStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// WriterSummary is a writer pod's termination message: ok writes over a 10 s window, with
// latencies spread evenly from 0.8 to 1.8 ms.
func WriterSummary(tb testing.TB, index, writers int32, ok int64, errMsg string) string {
	tb.Helper()
	resp, svc := sketch.New(), sketch.New()
	for i := int64(0); i < 1000; i++ {
		resp.Add(float64(800 + i))
		svc.Add(float64(700 + i))
	}
	s := summary.Summary{Index: index, Writers: writers, Start: WindowStart, End: WindowStart + 10000, Error: errMsg,
		Writes: &summary.Ops{OK: ok, WriteTimeout: 2, Retries: 3, Bytes: ok * 100, Response: resp, Service: svc}}
	b, err := s.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// FailedWriterSummary is the termination message of a writer that failed before its first
// send: its index and error, and no window.
func FailedWriterSummary(tb testing.TB, index, writers int32, errMsg string) string {
	tb.Helper()
	b, err := (&summary.Summary{Index: index, Writers: writers, Error: errMsg}).Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// PassPreflight plays the run's settings check finding every setting.
func (p Player) PassPreflight(tb testing.TB, run *cbv1.BenchmarkRun) {
	tb.Helper()
	job := p.WaitJob(tb, run.Namespace, jobs.PreflightName(run))
	p.Pods(tb, job, map[int32]PodResult{0: {Message: SetupReport(tb, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 1})}})
	p.FinishJob(tb, job, []int32{0}, nil)
}
