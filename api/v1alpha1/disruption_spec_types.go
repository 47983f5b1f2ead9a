package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AllowDisruptionsAnnotation on a CassandraDatacenter lets runs with spec.disruptions delete its
// pods, drain its nodes and flush or compact its tables while they measure: "true". It is a
// second opt-in beside AllowBenchmarksAnnotation, which a datacenter must carry too: a
// datacenter that lends itself to benchmarks has not thereby agreed to lose a node.
const AllowDisruptionsAnnotation = "cassbench.io/allow-disruptions"

// Reasons of a run's disruptions.
const (
	// ReasonDisruptionsNotAllowed: the run asks for disruptions of a datacenter that does not
	// carry AllowDisruptionsAnnotation="true".
	ReasonDisruptionsNotAllowed = "DisruptionsNotAllowed"
	// ReasonDisruptionFailed: a disruption could not be made or its node did not come back.
	ReasonDisruptionFailed = "DisruptionFailed"
)

// DisruptionKind is what a disruption does to its node.
// +kubebuilder:validation:Enum=DeletePod;Drain;Flush;Compact
type DisruptionKind string

const (
	// DisruptionDeletePod deletes the node's Cassandra pod; cass-operator's StatefulSet makes
	// it again and cass-operator starts Cassandra in it. The fault lasts until the new pod is
	// Ready.
	DisruptionDeletePod DisruptionKind = "DeletePod"
	// DisruptionDrain drains the node through its management API (nodetool drain: it flushes
	// and stops serving), then deletes its pod so that cass-operator starts it again, as a
	// rolling restart does. The fault lasts from the drain until the new pod is Ready.
	DisruptionDrain DisruptionKind = "Drain"
	// DisruptionFlush flushes the run's table on the node through its management API. The
	// fault lasts until the flush returned.
	DisruptionFlush DisruptionKind = "Flush"
	// DisruptionCompact major-compacts the run's table on the node through its management API.
	// The fault lasts until the compaction returned.
	DisruptionCompact DisruptionKind = "Compact"
)

// Disruption is one fault the controller makes at a time inside the measured window.
type Disruption struct {
	// kind is what is done: DeletePod, Drain, Flush or Compact.
	// +required
	Kind DisruptionKind `json:"kind"`
	// node is the datacenter's node to disrupt, 1-based, counting its Cassandra pods by rack
	// and then by StatefulSet ordinal (the first rack's pod 0 is node 1), as cassbench run
	// --disrupt counts local nodes from 1.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Node int32 `json:"node"`
	// at is when, from the measured window's start; it must be shorter than writers.duration.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	At metav1.Duration `json:"at"`
}

// DisruptionRecord is what the controller did for one of spec.disruptions, on its own clock:
// the figures in results.disruptions are read off the writers' timeline from these times.
type DisruptionRecord struct {
	// name is the disruption as asked for, such as "DeletePod 2 at 20s".
	// +required
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`
	// pod is the Cassandra pod the disruption was made on.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Pod string `json:"pod,omitempty"`
	// podUID is the UID of the pod a DeletePod or Drain deleted: the fault ends once a pod of
	// that name with another UID is Ready.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PodUID string `json:"podUID,omitempty"`
	// startTime is when the disruption was made (to the microsecond: the figures are read off
	// intervals of the timeline, and a time in whole seconds would move a fault by up to one).
	// +optional
	StartTime *metav1.MicroTime `json:"startTime,omitempty"`
	// endTime is when it ended: the new pod Ready, or the flush or compaction returned.
	// +optional
	EndTime *metav1.MicroTime `json:"endTime,omitempty"`
	// message says why the disruption failed or was skipped; empty when it was made.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}
