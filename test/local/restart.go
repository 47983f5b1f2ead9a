package local

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The kubelet's restart back-off: 10 s doubling to 5 minutes (kubelet.go's backOffPeriod and
// MaxContainerBackOff), forgotten once the container ran for twice the maximum
// (client-go's flowcontrol.Backoff, hasExpired).
const (
	initialRestartBackOff = 10 * time.Second
	maxRestartBackOff     = 5 * time.Minute
)

// restartBackOff is the kubelet's back-off entry for one container: its period, and when it
// last started the container again. The zero value is no entry.
type restartBackOff struct {
	period  time.Duration
	updated time.Time
}

// nextRestart is the kubelet's rule (kuberuntime_manager.go doBackOff, with client-go's
// Backoff.IsInBackOffSince and Next): a container that ended at finished is started again at
// once when it has no back-off entry, or one that expired; otherwise after the entry's period,
// and each restart doubles the period up to the maximum. So the first restart is immediate
// and CrashLoopBackOff shows from the second.
func nextRestart(b restartBackOff, finished time.Time) (time.Duration, restartBackOff) {
	if b.period == 0 || finished.Sub(b.updated) > 2*maxRestartBackOff {
		return 0, restartBackOff{period: initialRestartBackOff, updated: finished}
	}
	return b.period, restartBackOff{period: min(2*b.period, maxRestartBackOff), updated: finished.Add(b.period)}
}

// restarts tells whether the kubelet starts a container that exited with code again.
func restarts(policy corev1.RestartPolicy, code int) bool {
	switch policy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return code != 0
	default: // Always, the default
		return true
	}
}

// restartLater reports a container that ended and will be started again, and starts it after
// the back-off: the pod stays Running, not ready, with the ended container as its last state
// (CrashLoopBackOff while it waits). It returns false when the container stays ended: the
// pod's policy, or the runner stopping it.
func (r *PodRunner) restartLater(pod *corev1.Pod, p *podProcess, ended *corev1.ContainerStateTerminated) bool {
	r.mu.Lock()
	stopping := p.killing || r.ctx == nil || r.ctx.Err() != nil
	if stopping || !restarts(pod.Spec.RestartPolicy, int(ended.ExitCode)) {
		r.mu.Unlock()
		return false
	}
	delay, next := nextRestart(p.backOff, ended.FinishedAt.Time)
	p.backOff, p.lastState = next, ended
	ctx := r.ctx
	r.mu.Unlock()

	c := pod.Spec.Containers[0]
	state := corev1.ContainerState{Terminated: ended}
	if delay > 0 {
		state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", delay, c.Name, pod.Name)}}
	}
	r.Logf("pod runner: pod %s/%s: container %s restarts in %s (restart policy %s)", pod.Namespace, pod.Name, c.Name, delay, pod.Spec.RestartPolicy)
	statusCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	r.patchStatus(statusCtx, pod, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodRunning
		st.Conditions = podConditions(corev1.ConditionFalse, "ContainersNotReady", metav1.Now())
		st.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image, ImageID: "local://" + c.Image, ContainerID: ended.ContainerID,
			Ready: false, Started: ptrTo(false), RestartCount: p.Restarts,
			State: state, LastTerminationState: lastState(ended),
		}}
	})
	cancel()
	go r.restart(ctx, pod, p, delay)
	return true
}

// restart starts a pod's container again after delay, unless the pod went away or the runner
// stops it meanwhile.
func (r *PodRunner) restart(ctx context.Context, pod *corev1.Pod, p *podProcess, delay time.Duration) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(delay):
	}
	fresh := &corev1.Pod{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(pod), fresh); err != nil || fresh.UID != pod.UID || fresh.DeletionTimestamp != nil {
		return
	}
	r.mu.Lock()
	if p.killing {
		r.mu.Unlock()
		return
	}
	p.Restarts++
	r.mu.Unlock()
	if reason, msg, err := r.launch(ctx, fresh, p); err != nil {
		r.mu.Lock()
		p.failed = msg
		r.mu.Unlock()
		r.Logf("pod runner: pod %s/%s: restarting its container: %s: %s", pod.Namespace, pod.Name, reason, msg)
		return
	}
	r.Logf("pod runner: restarted pod %s/%s as pid %d (restart %d, log %s)", pod.Namespace, pod.Name, p.PID, p.Restarts, p.Log)
	go r.wait(fresh, p)
}

func lastState(t *corev1.ContainerStateTerminated) corev1.ContainerState {
	if t == nil {
		return corev1.ContainerState{}
	}
	return corev1.ContainerState{Terminated: t}
}
