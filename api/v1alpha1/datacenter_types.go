package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// DatacenterTuning is what the run changes on the datacenter. Every change is recorded and put
// back after the run unless KeepChanges is set.
type DatacenterTuning struct {
	// size is the number of Cassandra nodes during the run.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Size *int32 `json:"size,omitempty"`

	// config is deep-merged into the datacenter's spec.config, keyed as cass-operator takes it.
	// +optional
	Config *DatacenterConfig `json:"config,omitempty"`

	// keepChanges leaves the datacenter sized and tuned as the run left it.
	// +optional
	KeepChanges bool `json:"keepChanges,omitempty"`
}

// DatacenterConfig holds the sections of a CassandraDatacenter's spec.config that a run may
// change. Each section is free-form and merged key by key into the datacenter's own.
type DatacenterConfig struct {
	// cassandra-yaml settings, e.g. {"concurrent_writes": 64}. Every key is verified on every
	// node through system_views.settings before load starts.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	CassandraYaml *runtime.RawExtension `json:"cassandra-yaml,omitempty"`

	// jvm-server-options are the JVM options, e.g. {"max_heap_size": "8G", "initial_heap_size": "8G"}.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	JvmServerOptions *runtime.RawExtension `json:"jvm-server-options,omitempty"`

	// jvm11-server-options are JVM options for Java 11 images.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Jvm11ServerOptions *runtime.RawExtension `json:"jvm11-server-options,omitempty"`

	// jvm17-server-options are JVM options for Java 17 images, e.g. the garbage collector.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Jvm17ServerOptions *runtime.RawExtension `json:"jvm17-server-options,omitempty"`

	// cassandra-env-sh settings for cassandra-env.sh.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	CassandraEnvSh *runtime.RawExtension `json:"cassandra-env-sh,omitempty"`
}

// HeldDatacenter is what a holder (a run, or a sweep with restore atEnd) recorded of the
// datacenter it holds, before it changed anything: which datacenter, its size and config as
// they were, and the generation its restore produced. The run's and the sweep's
// status.datacenter share it, so that what to put back by hand reads the same on both.
type HeldDatacenter struct {
	// name of the datacenter.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
	// namespace of the datacenter.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
	// originalSize is the datacenter's size before the holder changed it.
	// +optional
	OriginalSize *int32 `json:"originalSize,omitempty"`
	// originalConfig is the datacenter's spec.config before the holder changed it, exactly as it
	// was; absent when the datacenter had no spec.config, which restoring then removes.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	OriginalConfig *runtime.RawExtension `json:"originalConfig,omitempty"`
	// restoredGeneration is the generation the restore patch produced.
	// +optional
	RestoredGeneration int64 `json:"restoredGeneration,omitempty"`
}

// DatacenterStatus is what the run found on, and changed in, its datacenter.
type DatacenterStatus struct {
	HeldDatacenter `json:",inline"`
	// size during the run.
	// +optional
	Size int32 `json:"size,omitempty"`
	// changed is true once the run has seen the datacenter at its size and config and they
	// differ from the originals. Restoring does not depend on it: it compares the datacenter
	// with the originals and the run's target.
	// +optional
	Changed bool `json:"changed,omitempty"`
	// patchedGeneration is the datacenter's generation when the run first saw it at its size
	// and config; readiness waits for cass-operator to observe it, and any later generation
	// while the run holds the datacenter is someone else's change (drift).
	// +optional
	PatchedGeneration int64 `json:"patchedGeneration,omitempty"`
	// cassandraVersion reported by the setup Job.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	CassandraVersion string `json:"cassandraVersion,omitempty"`
	// nodes seen by the setup Job.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`
	// settingsVerified lists the cassandra-yaml settings found on every node, then the
	// jvm*-server-options keys (heap, collector) found so.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:MaxItems=256
	SettingsVerified []string `json:"settingsVerified,omitempty"`
	// settingsUnverified lists the JVM settings the run asked for that could not be read on
	// some node, with why: the result is not attributed to them as verified.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=256
	SettingsUnverified []string `json:"settingsUnverified,omitempty"`
}
