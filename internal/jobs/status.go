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
