package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A run across several datacenters of one Cassandra cluster (cass-operator joins the
// CassandraDatacenters that share spec.clusterName) names them in spec.datacenters instead of
// spec.datacenterRef. Each is lent as a single datacenter is (opt-in, lock, record, change,
// give back), taken in the order of namespace/name so that two runs that need the same two
// datacenters cannot each hold one and wait for the other. spec.datacenter's size and config
// apply to each of them.
//
// What the spec alone shows is refused at admission by the CRD's rules (a datacenter named
// twice, writers that do not add up to writers.replicas, a consistency level that needs a
// datacenter the run does not name, observers with nothing to observe); what needs the
// cluster (a replication map naming a datacenter that is not in it, datacenters of different
// clusters) fails the run before it takes any datacenter, naming the field.

// RunDatacenter is one datacenter of a run across several.
type RunDatacenter struct {
	// name of the CassandraDatacenter, a DNS-1123 subdomain as every object name. The keyspace's
	// replication (schema.replication.datacenters) names datacenters the same way.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')`,message="datacenters[].name must be a CassandraDatacenter's name: lower case letters, digits, '-' and '.', starting and ending with a letter or digit"
	Name string `json:"name"`

	// namespace of the CassandraDatacenter; defaults to the run's namespace. The datacenter must
	// list the run's namespace in its cassbench.io/allow-benchmarks annotation.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule=`self == '' || self.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')`,message="datacenters[].namespace must be a namespace's name: lower case letters, digits and '-', starting and ending with a letter or digit"
	Namespace string `json:"namespace,omitempty"`

	// writers is how many of writers.replicas run in this datacenter, each connected to it as
	// its local datacenter (LOCAL_ONE and LOCAL_QUORUM are counted here). The writers of all
	// datacenters add up to writers.replicas.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Writers int32 `json:"writers,omitempty"`

	// observers read a sampled share of the other datacenters' writers' acknowledged inserts
	// back in this datacenter at LOCAL_ONE and record how long each took to become visible
	// (status.results.replicationLag; spec.replicationLag sets the share and the limits).
	// Each writer of another datacenter observes its own inserts, through a session whose
	// only datacenter is this one, with 4 reads in flight per observer. A run observes one
	// datacenter.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=8
	Observers int32 `json:"observers,omitempty"`
}

// ReplicationLagSpec is how observers measure replication lag.
type ReplicationLagSpec struct {
	// sampleShare is the share of acknowledged inserts an observer reads back, a decimal in
	// (0, 1], e.g. "0.01": a small share keeps the observers from loading the cluster.
	// +optional
	// +kubebuilder:default="0.01"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^(0(\.[0-9]{1,6})?|1(\.0{1,6})?)$`
	// +kubebuilder:validation:XValidation:rule="double(self) > 0.0",message="replicationLag.sampleShare must be above 0, e.g. 0.01"
	SampleShare string `json:"sampleShare,omitempty"`

	// limit is how long after its acknowledgement a key is looked for before it is counted as
	// censored (not seen) rather than given a lag.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Limit *metav1.Duration `json:"limit,omitempty"`

	// poll is the pause between two reads of one key; it bounds how far above the true lag a
	// figure may be.
	// +optional
	// +kubebuilder:default="10ms"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Poll *metav1.Duration `json:"poll,omitempty"`
}

// DatacenterReplication is a keyspace's replication factor in one datacenter
// (NetworkTopologyStrategy).
type DatacenterReplication struct {
	// name of the datacenter: a CassandraDatacenter of the run's cluster, named as in
	// spec.datacenters. It may be one the run does not name: the keyspace is then replicated
	// there too, and the run does not take it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// factor is the number of replicas in the datacenter.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=32
	Factor int32 `json:"factor"`
}
