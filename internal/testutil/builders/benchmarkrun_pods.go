package builders

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Where the run's pods go, and the object's identity as the apiserver stamps it.

// NodeSelector sets spec.writers.nodeSelector.
func (b *BenchmarkRunBuilder) NodeSelector(selector map[string]string) *BenchmarkRunBuilder {
	b.Spec.Writers.NodeSelector = selector
	return b
}

// Tolerations sets spec.writers.tolerations.
func (b *BenchmarkRunBuilder) Tolerations(tolerations ...corev1.Toleration) *BenchmarkRunBuilder {
	b.Spec.Writers.Tolerations = tolerations
	return b
}

// UID sets metadata.uid, as the apiserver would.
func (b *BenchmarkRunBuilder) UID(uid types.UID) *BenchmarkRunBuilder {
	b.ObjectMeta.UID = uid
	return b
}
