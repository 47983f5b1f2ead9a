//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// The manager's pod deleted while the writers run (a node drained, an eviction): the
// Deployment's new pod takes the lease its predecessor released and finishes the run from
// what the API holds. The run Succeeded with every writer's result and dc1 given back.
// test/local kills the manager's process; here the real kubelet stops the container
// (SIGTERM, then the chart's 10 s grace) and the ReplicaSet makes a new pod.
func TestManagerPodDeletedMidRunStillSucceedsAndRestores(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	k := connect(t)
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		// Long enough that the delete lands inside the window whatever the poll's phase.
		r.Spec.Writers.Duration = ptr.To(metav1.Duration{Duration: 45 * time.Second})
	})
	before := k.start(ctx, t, run)
	var deleted types.UID
	done := k.waitFinished(ctx, t, run, func(got *cbv1.BenchmarkRun) {
		if deleted != "" || got.Status.Phase != cbv1.PhaseRunning || got.Status.Progress == nil {
			return
		}
		deleted = k.deleteManagerPod(ctx, t)
	})
	if deleted == "" {
		t.Fatal("the run finished before its writers were seen running: the manager's pod was never deleted")
	}
	succeeded(t, done)
	if r := done.Status.Results; r == nil || r.WritersReported != run.Spec.Writers.Replicas || r.Operations <= 0 {
		t.Errorf("results %+v, want every one of %d writers' operations", r, run.Spec.Writers.Replicas)
	}
	k.checkRestored(ctx, t, done, before)

	pod := k.managerPod(ctx, t)
	if pod.UID == deleted {
		t.Errorf("the deleted manager pod %s is still there", pod.Name)
	}
	t.Logf("the run was finished by manager pod %s: %s", pod.Name, containerStates(*pod))
	for _, s := range pod.Status.ContainerStatuses {
		if !s.Ready || s.RestartCount != 0 {
			t.Errorf("the new manager's container %s: ready %v, restarted %d times", s.Name, s.Ready, s.RestartCount)
		}
	}
}

// managerPod is the chart's one manager pod that is not being deleted.
func (k *cluster) managerPod(ctx context.Context, t *testing.T) *corev1.Pod {
	t.Helper()
	pods, err := k.cs.CoreV1().Pods(managerNamespace).List(ctx, metav1.ListOptions{LabelSelector: managerSelector})
	if err != nil {
		t.Fatalf("listing the manager's pods: %v", err)
	}
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	if len(live) != 1 {
		t.Fatalf("%d manager pods, want 1", len(live))
	}
	return &live[0]
}

// deleteManagerPod deletes the manager's pod as kubectl delete pod does, and returns its UID.
func (k *cluster) deleteManagerPod(ctx context.Context, t *testing.T) types.UID {
	t.Helper()
	pod := k.managerPod(ctx, t)
	if err := k.cs.CoreV1().Pods(managerNamespace).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the manager's pod %s: %v", pod.Name, err)
	}
	t.Logf("deleted the manager's pod %s while the writers ran", pod.Name)
	return pod.UID
}
