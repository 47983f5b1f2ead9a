package builders

import (
	"encoding/json"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// DatacenterBuilder builds a cass-operator CassandraDatacenter.
type DatacenterBuilder struct {
	cassdcapi.CassandraDatacenter
}

// MakeDatacenter starts a one-node Cassandra 5.0 datacenter with every field the
// cass-operator CRD requires, so the apiserver admits it as it is.
func MakeDatacenter(name, namespace string) *DatacenterBuilder {
	storageClass := "standard"
	return &DatacenterBuilder{cassdcapi.CassandraDatacenter{
		TypeMeta: metav1.TypeMeta{
			APIVersion: cassdcapi.GroupVersion.String(),
			Kind:       "CassandraDatacenter",
		},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: cassdcapi.CassandraDatacenterSpec{
			ClusterName:   "cluster1",
			ServerType:    "cassandra",
			ServerVersion: "5.0.4",
			Size:          1,
			StorageConfig: cassdcapi.StorageConfig{
				CassandraDataVolumeClaimSpec: &corev1.PersistentVolumeClaimSpec{
					StorageClassName: &storageClass,
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
					},
				},
			},
		},
	}}
}

// Obj returns the built object.
func (b *DatacenterBuilder) Obj() *cassdcapi.CassandraDatacenter { return &b.CassandraDatacenter }

// Clone returns a copy to change without changing this one.
func (b *DatacenterBuilder) Clone() *DatacenterBuilder { return &DatacenterBuilder{*b.DeepCopy()} }

// Cluster sets spec.clusterName, which names the CQL service and superuser secret.
func (b *DatacenterBuilder) Cluster(name string) *DatacenterBuilder {
	b.Spec.ClusterName = name
	return b
}

// Size sets the number of nodes.
func (b *DatacenterBuilder) Size(nodes int32) *DatacenterBuilder {
	b.Spec.Size = nodes
	return b
}

// ServerVersion sets the Cassandra version.
func (b *DatacenterBuilder) ServerVersion(version string) *DatacenterBuilder {
	b.Spec.ServerVersion = version
	return b
}

// Config sets spec.config from a JSON document, as cass-operator stores it.
func (b *DatacenterBuilder) Config(document string) *DatacenterBuilder {
	b.Spec.Config = json.RawMessage(document)
	return b
}

// SuperuserSecret sets spec.superuserSecretName.
func (b *DatacenterBuilder) SuperuserSecret(name string) *DatacenterBuilder {
	b.Spec.SuperuserSecretName = name
	return b
}

// AllowBenchmarks sets the opt-in annotation: "true", or a comma-separated namespace list.
func (b *DatacenterBuilder) AllowBenchmarks(value string) *DatacenterBuilder {
	return b.Annotation(cbv1.AllowBenchmarksAnnotation, value)
}

// Annotation sets an annotation.
func (b *DatacenterBuilder) Annotation(key, value string) *DatacenterBuilder {
	if b.Annotations == nil {
		b.Annotations = map[string]string{}
	}
	b.Annotations[key] = value
	return b
}

// Label sets a label.
func (b *DatacenterBuilder) Label(key, value string) *DatacenterBuilder {
	if b.Labels == nil {
		b.Labels = map[string]string{}
	}
	b.Labels[key] = value
	return b
}

// K8ssandraCluster marks the datacenter as k8ssandra-operator 1.32 marks the ones its
// K8ssandraCluster controller creates (pkg/cassandra/datacenter.go NewDatacenter): its labels
// and finalizer.
func (b *DatacenterBuilder) K8ssandraCluster(namespace, name string) *DatacenterBuilder {
	b.Label("app.kubernetes.io/name", "k8ssandra-operator").Label("app.kubernetes.io/part-of", "k8ssandra").
		Label("app.kubernetes.io/component", "cassandra").Label("k8ssandra.io/cleaned-up-by", "k8ssandracluster-controller").
		Label("k8ssandra.io/cluster-name", name).Label("k8ssandra.io/cluster-namespace", namespace)
	b.Finalizers = append(b.Finalizers, "k8ssandracluster.k8ssandra.io/finalizer")
	return b
}

// Ready is the datacenter as cass-operator reports it once it applied generation: observed,
// Ready, progress Ready.
func (b *DatacenterBuilder) Ready(generation int64) *DatacenterBuilder {
	b.Generation, b.Status.ObservedGeneration = generation, generation
	b.Status.CassandraOperatorProgress = cassdcapi.ProgressReady
	b.SetCondition(cassdcapi.DatacenterCondition{Type: cassdcapi.DatacenterReady, Status: corev1.ConditionTrue})
	return b
}

// LockedBy sets the lock annotation to a holder: "namespace/name" for a run,
// "sweep:namespace/name" for a sweep.
func (b *DatacenterBuilder) LockedBy(holder string) *DatacenterBuilder {
	return b.Annotation(cbv1.LockAnnotation, holder)
}

// Condition sets a cass-operator condition True, with message, as cass-operator writes it.
func (b *DatacenterBuilder) Condition(t cassdcapi.DatacenterConditionType, message string) *DatacenterBuilder {
	b.SetCondition(cassdcapi.DatacenterCondition{Type: t, Status: corev1.ConditionTrue, Message: message})
	return b
}

// Apply changes the object in a way no other method names.
func (b *DatacenterBuilder) Apply(f func(*cassdcapi.CassandraDatacenter)) *DatacenterBuilder {
	f(b.Obj())
	return b
}
