package builders

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// JobBuilder builds a batch/v1 Job.
type JobBuilder struct {
	batchv1.Job
}

// MakeJob starts a Job the apiserver admits as it is: one container, restartPolicy Never.
func MakeJob(name, namespace string) *JobBuilder {
	return &JobBuilder{batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "x"}},
		}}},
	}}
}

// Obj returns the built object.
func (b *JobBuilder) Obj() *batchv1.Job { return &b.Job }

// Clone returns a copy to change without changing this one.
func (b *JobBuilder) Clone() *JobBuilder { return &JobBuilder{*b.DeepCopy()} }

// Label sets a label on the Job.
func (b *JobBuilder) Label(key, value string) *JobBuilder {
	if b.Labels == nil {
		b.Labels = map[string]string{}
	}
	b.Labels[key] = value
	return b
}

// Condition adds a status condition, as the Job controller writes it.
func (b *JobBuilder) Condition(t batchv1.JobConditionType, status corev1.ConditionStatus) *JobBuilder {
	b.Status.Conditions = append(b.Status.Conditions, batchv1.JobCondition{Type: t, Status: status})
	return b
}

// ControlledBy makes owner the Job's controller, as a reconciler that creates it does.
func (b *JobBuilder) ControlledBy(owner metav1.Object, gvk schema.GroupVersionKind) *JobBuilder {
	b.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, gvk)}
	return b
}

// Created sets the creation time and UID the apiserver would have set.
func (b *JobBuilder) Created(at time.Time, uid types.UID) *JobBuilder {
	b.CreationTimestamp, b.UID = metav1.NewTime(at), uid
	return b
}

// Running is a Job with one active pod.
func (b *JobBuilder) Running() *JobBuilder {
	b.Status.Active = 1
	return b
}

// Complete is a Job that succeeded, as the Job controller marks it, at at.
func (b *JobBuilder) Complete(at time.Time) *JobBuilder {
	b.Status.Conditions = append(b.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(at)})
	return b
}

// Failed is a Job that failed for reason, as the Job controller marks it, at at.
func (b *JobBuilder) Failed(reason string, at time.Time) *JobBuilder {
	b.Status.Conditions = append(b.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
		Reason: reason, LastTransitionTime: metav1.NewTime(at)})
	return b
}

// Suspended is a Job whose pods are gone after it was suspended.
func (b *JobBuilder) Suspended() *JobBuilder {
	b.Spec.Suspend = ptr.To(true)
	b.Status.Active = 0
	return b
}
