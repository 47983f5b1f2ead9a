package builders

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JobBuilder builds a batch/v1 Job.
type JobBuilder struct {
	obj *batchv1.Job
}

// MakeJob starts a Job the apiserver admits as it is: one container, restartPolicy Never.
func MakeJob(name, namespace string) *JobBuilder {
	return &JobBuilder{obj: &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "x"}},
		}}},
	}}
}

// Obj returns the built object.
func (b *JobBuilder) Obj() *batchv1.Job { return b.obj }

// Label sets a label on the Job.
func (b *JobBuilder) Label(key, value string) *JobBuilder {
	if b.obj.Labels == nil {
		b.obj.Labels = map[string]string{}
	}
	b.obj.Labels[key] = value
	return b
}

// Condition adds a status condition, as the Job controller writes it.
func (b *JobBuilder) Condition(t batchv1.JobConditionType, status corev1.ConditionStatus) *JobBuilder {
	b.obj.Status.Conditions = append(b.obj.Status.Conditions, batchv1.JobCondition{Type: t, Status: status})
	return b
}
