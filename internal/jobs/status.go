package jobs

import (
	"sort"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Finished tells whether a Job is done and whether it succeeded.
func Finished(job *batchv1.Job) (finished, succeeded bool) {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return true, true
		case batchv1.JobFailed:
			return true, false
		}
	}
	return false, false
}

// FailureMessage is the Job's Failed condition message, if any.
func FailureMessage(job *batchv1.Job) string {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return c.Reason + ": " + c.Message
		}
	}
	return ""
}

// Terminated is what one finished pod left behind.
type Terminated struct {
	Pod      string
	Index    int32
	ExitCode int32
	Reason   string
	// Message is the container's termination message: the JSON report or summary.
	Message string
}

// TerminatedPods returns, per completion index (0 for a non-indexed Job), the last pod that
// terminated, with its container's termination message. Pods still running are left out.
func TerminatedPods(pods []corev1.Pod, container string) map[int32]Terminated {
	sorted := append([]corev1.Pod(nil), pods...)
	sort.Slice(sorted, func(i, j int) bool {
		return sorted[i].CreationTimestamp.Before(&sorted[j].CreationTimestamp)
	})
	out := map[int32]Terminated{}
	for _, p := range sorted {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name != container || cs.State.Terminated == nil {
				continue
			}
			t := cs.State.Terminated
			idx := completionIndex(&p)
			out[idx] = Terminated{Pod: p.Name, Index: idx, ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message}
		}
	}
	return out
}

func completionIndex(p *corev1.Pod) int32 {
	v := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if v == "" {
		v = p.Labels[batchv1.JobCompletionIndexAnnotation]
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0
	}
	return int32(i)
}

// Counts of a writer Job's pods, as the Job controller reports them.
func Counts(job *batchv1.Job) (active, succeeded, failed int32) {
	return job.Status.Active, job.Status.Succeeded, job.Status.Failed
}

// FinishedAt is when the Job reached Complete or Failed, zero while it has not.
func FinishedAt(job *batchv1.Job) time.Time {
	for _, c := range job.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// NotStarting is a pod of a run's Job that is not running and cannot start by itself yet:
// a container the kubelet keeps waiting (its image cannot be pulled, a Secret or ConfigMap
// it reads is missing), or a pod the scheduler finds no node for.
type NotStarting struct {
	Pod     string
	Reason  string
	Message string
	// Since is when the pod has been so at the latest: the pod's creation for a waiting
	// container (the kubelet keeps no time for it), the PodScheduled condition's transition
	// for an unschedulable pod.
	Since time.Time
	// Retried: the kubelet or the scheduler tries again, and something outside the run (a
	// Secret created, a registry back, a node added) can still let the pod start. A pod that
	// is not retried never starts (an invalid image name, a pull policy of Never).
	Retried bool
	// Unschedulable: no node takes the pod; a cluster autoscaler may add one.
	Unschedulable bool
}

// waitingReasons are the reasons the kubelet gives a container that cannot start, and
// whether it tries again. ContainerCreating and PodInitializing are a start under way.
var waitingReasons = map[string]bool{
	"ErrImagePull":               true,
	"ImagePullBackOff":           true,
	"CreateContainerConfigError": true,
	"CreateContainerError":       true,
	"InvalidImageName":           false,
	"ErrImageNeverPull":          false,
}

// NotStartingPods returns the pods that cannot start, in the order given. Pods being deleted
// and pods that ran are left out.
func NotStartingPods(pods []corev1.Pod) []NotStarting {
	var out []NotStarting
	for _, p := range pods {
		if !p.DeletionTimestamp.IsZero() || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if ns, ok := waitingContainer(p); ok {
			out = append(out, ns)
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				out = append(out, NotStarting{Pod: p.Name, Reason: c.Reason, Message: c.Message,
					Since: c.LastTransitionTime.Time, Retried: true, Unschedulable: true})
			}
		}
	}
	return out
}

func waitingContainer(p corev1.Pod) (NotStarting, bool) {
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, cs := range statuses {
		w := cs.State.Waiting
		if w == nil {
			continue
		}
		if retried, known := waitingReasons[w.Reason]; known {
			return NotStarting{Pod: p.Name, Reason: w.Reason, Message: w.Message, Since: p.CreationTimestamp.Time, Retried: retried}, true
		}
	}
	return NotStarting{}, false
}
