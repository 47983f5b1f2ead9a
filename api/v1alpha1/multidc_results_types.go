package v1alpha1

// DatacenterResults are what the writers of one datacenter of a run across several measured,
// merged from their own summaries alone (never from the run's percentiles), beside the
// merge of every writer in status.results.
type DatacenterResults struct {
	// name of the CassandraDatacenter the writers ran in, as spec.datacenters names it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// writersReported counts the datacenter's writers that reported.
	// +required
	WritersReported int32 `json:"writersReported"`
	// operations the datacenter's writers completed inside the measured window.
	// +required
	Operations int64 `json:"operations"`
	// opsPerSecond is operations over the measured window.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// writes of the datacenter's writers, as status.results.writes has them for all.
	// +optional
	Writes *OperationResults `json:"writes,omitempty"`
	// reads of the datacenter's writers, as status.results.reads has them for all.
	// +optional
	Reads *OperationResults `json:"reads,omitempty"`
	// errors counts the datacenter's failed operations by kind, after retries.
	// +required
	Errors ErrorCounts `json:"errors"`
	// timeoutsPerOperation is the datacenter's operations that ended in a timeout over those
	// that ended, as a decimal string.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	TimeoutsPerOperation string `json:"timeoutsPerOperation,omitempty"`
}
