package packaging_test

// Copied, trimmed, from controllers/suite_test.go (test helpers cannot be imported across
// packages): playing cass-operator, the Job controller and the kubelet through one run. Keep
// in step with the original until both move to a shared internal/testutil package.

import (
	"context"
	"fmt"
	"strconv"
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
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

const testImage = "cassbench:test"

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

func create(t testing.TB, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
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

// playOperatorApplies plays cass-operator applying the run's patch: it waits for the spec to
// change, rolls, then settles.
func playOperatorApplies(t testing.TB, dc *cassdcapi.CassandraDatacenter, fromGeneration int64) {
	t.Helper()
	eventually(t, 30*time.Second, "waiting for the run to patch the datacenter", func() error {
		if g := getDC(t, dc).Generation; g <= fromGeneration {
			return fmt.Errorf("generation still %d", g)
		}
		return nil
	})
	if err := kube.SetDatacenterStatus(context.Background(), env.Client, dc, kube.MarkDatacenterUpdating(dc)); err != nil {
		t.Fatal(err)
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

func waitJob(t testing.TB, ns, name string) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{}
	eventually(t, 30*time.Second, "waiting for Job "+name, func() error {
		return env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, job)
	})
	return job
}

// finishPods creates a pod per completion index from the Job's template, as the Job
// controller would, and ends each as the kubelet would, with its termination message.
func finishPods(t testing.TB, job *batchv1.Job, messages map[int32]string) {
	t.Helper()
	ctx := context.Background()
	for index, message := range messages {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("%s-%d-x", job.Name, index),
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
		if err := env.Client.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating pod: %v", err)
		}
		now := metav1.Now()
		pod.Status.Phase = corev1.PodSucceeded
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: pod.Spec.Containers[0].Name, Image: testImage, ImageID: testImage,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				Reason: "Completed", Message: message, StartedAt: now, FinishedAt: now}},
		}}
		if err := env.Client.Status().Update(ctx, pod); err != nil {
			t.Fatalf("writing pod status: %v", err)
		}
	}
}

// completeJob writes the status the Job controller of v1.35 writes when every index succeeded.
func completeJob(t testing.TB, job *batchv1.Job, indexes int32) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	start := metav1.NewTime(now.Add(-time.Second))
	job.Status.StartTime = &start
	job.Status.CompletionTime = &now
	job.Status.Active = 0
	job.Status.Ready = ptr.To[int32](0)
	job.Status.Terminating = ptr.To[int32](0)
	job.Status.Succeeded = indexes
	job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion {
		job.Status.CompletedIndexes = "0"
		if indexes > 1 {
			job.Status.CompletedIndexes = fmt.Sprintf("0-%d", indexes-1)
		}
		if job.Spec.BackoffLimitPerIndex != nil {
			job.Status.FailedIndexes = ptr.To("")
		}
	}
	reason := batchv1.JobReasonCompletionsReached
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: reason, LastProbeTime: now, LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: reason, Message: "played by the test", LastProbeTime: now, LastTransitionTime: now},
	}
	if err := env.Client.Status().Update(ctx, job); err != nil {
		t.Fatalf("writing Job status: %v", err)
	}
}

func setupReport(t testing.TB, nodes int32) string {
	t.Helper()
	r := summary.SetupReport{CassandraVersion: "5.0.4", Nodes: nodes}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writerSummary is a writer pod's termination message: ok writes at about 1 ms each.
func writerSummary(t testing.TB, index, writers int32, ok int64) string {
	t.Helper()
	resp, svc := sketch.New(), sketch.New()
	for i := int64(0); i < 1000; i++ {
		resp.Add(float64(800 + i))
		svc.Add(float64(700 + i))
	}
	start := time.Now().Add(-10 * time.Second).UnixMilli()
	s := summary.Summary{Index: index, Writers: writers, Start: start, End: start + 10000,
		Writes: &summary.Ops{OK: ok, Bytes: ok * 100, Response: resp, Service: svc}}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
