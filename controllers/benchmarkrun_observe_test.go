package controllers

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cassbench/cassbench/internal/jobs"
)

func TestOwnedIgnoresAnEarlierRunsJobsAndPods(t *testing.T) {
	run := aRun().Obj()
	mineJob, oldJob := runJob(jobs.ComponentWriter).Obj(), leftBehind(jobs.ComponentSetup).Obj()
	oldWriter := leftBehind(jobs.ComponentWriter).Obj()
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
	// A pod the StatefulSet controller replaces: still ready, but on its way out.
	leaving := *ready.DeepCopy()
	leaving.Name = "sts-5"
	leaving.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	got := notReady([]corev1.Pod{ready, pending, starting, refused, badInit, leaving})
	want := []string{
		"sts-1 (Running; container cassandra running, not ready, last terminated: Error (exit code 143): liveness probe failed, restarted 2 times)",
		"sts-2 (Pending; container server-config-init waiting: CrashLoopBackOff: back-off 20s)",
		"sts-3 (Running)", "sts-4 (Pending: 0/3 nodes are available)", "sts-5 (Running; terminating)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("notReady = %q, want %q", got, want)
	}
}

// Setup learns from the datacenter which keyspaces it may drop, and clears what a drop leaves
// through the management API unless the datacenter asks for mutual TLS there.
