package builders

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodBuilder builds a Pod; its status methods write what the kubelet would.
type PodBuilder struct {
	corev1.Pod
}

// MakePod starts a pod the apiserver admits as it is: one container.
func MakePod(name, namespace string) *PodBuilder {
	return &PodBuilder{corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}},
	}}
}

// Obj returns the built object.
func (b *PodBuilder) Obj() *corev1.Pod { return &b.Pod }

// Clone returns a copy to change without changing this one.
func (b *PodBuilder) Clone() *PodBuilder { return &PodBuilder{*b.DeepCopy()} }

// Labels sets the pod's labels.
func (b *PodBuilder) Labels(labels map[string]string) *PodBuilder {
	b.ObjectMeta.Labels = labels
	return b
}

// Annotation sets an annotation.
func (b *PodBuilder) Annotation(key, value string) *PodBuilder {
	if b.Annotations == nil {
		b.Annotations = map[string]string{}
	}
	b.Annotations[key] = value
	return b
}

// Container replaces the pod's containers with one of this name and image.
func (b *PodBuilder) Container(name, image string) *PodBuilder {
	b.Spec.Containers = []corev1.Container{{Name: name, Image: image}}
	return b
}

// Created sets metadata.creationTimestamp, as the apiserver would.
func (b *PodBuilder) Created(t time.Time) *PodBuilder {
	b.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Phase sets status.phase.
func (b *PodBuilder) Phase(p corev1.PodPhase) *PodBuilder {
	b.Status.Phase = p
	return b
}

// Running adds a running container's status.
func (b *PodBuilder) Running(container string) *PodBuilder {
	return b.containerStatus(false, corev1.ContainerStatus{Name: container,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
}

// Terminated adds a terminated container's status, with its exit code, reason and
// termination message.
func (b *PodBuilder) Terminated(container string, exitCode int32, reason, message string) *PodBuilder {
	return b.containerStatus(false, corev1.ContainerStatus{Name: container, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason, Message: message}}})
}

// Waiting adds a waiting container's status (an init container's with init).
func (b *PodBuilder) Waiting(container string, init bool, reason, message string) *PodBuilder {
	return b.containerStatus(init, corev1.ContainerStatus{Name: container, State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}})
}

func (b *PodBuilder) containerStatus(init bool, cs corev1.ContainerStatus) *PodBuilder {
	if init {
		b.Status.InitContainerStatuses = append(b.Status.InitContainerStatuses, cs)
	} else {
		b.Status.ContainerStatuses = append(b.Status.ContainerStatuses, cs)
	}
	return b
}

// Condition adds a pod condition.
func (b *PodBuilder) Condition(t corev1.PodConditionType, status corev1.ConditionStatus, reason, message string, at time.Time) *PodBuilder {
	b.Status.Conditions = append(b.Status.Conditions, corev1.PodCondition{Type: t, Status: status,
		Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(at)})
	return b
}
