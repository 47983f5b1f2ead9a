package v1alpha1

// OperationKind is an operation of the mix besides the insert (writeRatio) and the read of
// readPath (readRatio).
// +kubebuilder:validation:Enum=update;delete;insertIfNotExists;counterIncrement;scanPartition;scanTokenRange
type OperationKind string

const (
	// OperationUpdate sets some regular columns of a row written before (UPDATE ... SET).
	OperationUpdate OperationKind = "update"
	// OperationDelete deletes a row written before by its full primary key.
	OperationDelete OperationKind = "delete"
	// OperationInsertIfNotExists inserts the next row as a lightweight transaction
	// (INSERT ... IF NOT EXISTS): applied when the key is new, not applied when it exists.
	OperationInsertIfNotExists OperationKind = "insertIfNotExists"
	// OperationCounterIncrement adds 1 to counter columns of a row (UPDATE ... SET c = c + 1);
	// it needs a table with counter columns (profile counters, or a cql table with them).
	OperationCounterIncrement OperationKind = "counterIncrement"
	// OperationScanPartition reads every row of a partition written before, page by page.
	OperationScanPartition OperationKind = "scanPartition"
	// OperationScanTokenRange reads every row of one token range (a share of the ring), page
	// by page, as a full-table scan split across clients does.
	OperationScanTokenRange OperationKind = "scanTokenRange"
)

// SerialConsistency is the consistency level of a lightweight transaction's Paxos phase.
// +kubebuilder:validation:Enum=SERIAL;LOCAL_SERIAL
type SerialConsistency string

// Operation is one weighted kind of operation in the mix. Its weight counts with writeRatio
// and readRatio: writeRatio 1, readRatio 1 and an update of weight 2 make half the operations
// updates. Updates, deletes, lightweight transactions and counter increments run at
// writeConsistency, scans at readConsistency.
// +kubebuilder:validation:XValidation:rule="!has(self.columns) || self.kind == 'update' || self.kind == 'counterIncrement'",message="columns applies to update and counterIncrement: remove columns from this operation"
// +kubebuilder:validation:XValidation:rule="!has(self.serialConsistency) || self.kind == 'insertIfNotExists'",message="serialConsistency applies to insertIfNotExists: remove it from this operation"
// +kubebuilder:validation:XValidation:rule="!has(self.pageSize) || self.kind == 'scanPartition' || self.kind == 'scanTokenRange'",message="pageSize applies to scanPartition and scanTokenRange: remove it from this operation"
// +kubebuilder:validation:XValidation:rule="!has(self.splits) || self.kind == 'scanTokenRange'",message="splits applies to scanTokenRange: remove it from this operation"
type Operation struct {
	// kind of operation; each kind appears once in the list.
	// +required
	Kind OperationKind `json:"kind"`

	// weight of this kind in the mix, with writeRatio and readRatio.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Weight int32 `json:"weight,omitempty"`

	// columns an update sets (default: every regular column) or a counterIncrement adds 1 to
	// (default: every counter column). Key columns cannot be set.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=48
	Columns []string `json:"columns,omitempty"`

	// serialConsistency of an insertIfNotExists: SERIAL (all datacenters, the default) or
	// LOCAL_SERIAL. Its commit runs at writeConsistency.
	// +optional
	SerialConsistency SerialConsistency `json:"serialConsistency,omitempty"`

	// pageSize is the rows a scan fetches per request; every page of the partition or range
	// is read before the scan counts as done. Default 5000, the driver's.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	PageSize int32 `json:"pageSize,omitempty"`

	// splits is how many equal token ranges the ring is cut into for scanTokenRange; the
	// writers' scans walk them in turn, so splits scans read the whole table once.
	// Default 256.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	Splits int32 `json:"splits,omitempty"`
}

// KindSketch is the merged response latency sketch of one kind of workload.operations,
// encoded as the other sketches of ResultSketches.
type KindSketch struct {
	// kind of operation.
	// +required
	Kind OperationKind `json:"kind"`
	// response is the encoded response latency sketch.
	// +required
	// +kubebuilder:validation:MaxLength=1048576
	Response string `json:"response"`
}

// KindResults are the figures of one operation kind of workload.operations.
type KindResults struct {
	// kind of operation.
	// +required
	Kind OperationKind `json:"kind"`
	// operations that succeeded, and their achieved rate.
	// +required
	Operations int64 `json:"operations"`
	// opsPerSecond is the achieved rate of the kind's successful operations.
	// +required
	OpsPerSecond int64 `json:"opsPerSecond"`
	// failed operations, after retries.
	// +optional
	Failed int64 `json:"failed,omitempty"`
	// response latency of every operation of the kind, failed ones too (see
	// OperationResults). A scan's latency runs from its first page's request to its last
	// page's answer.
	// +required
	Response Latency `json:"response"`
	// rows and Pages a scan read, and Misses: scans that found no row.
	// +optional
	Rows int64 `json:"rows,omitempty"`
	// pages a scan read.
	// +optional
	Pages int64 `json:"pages,omitempty"`
	// misses counts the scans that found no row.
	// +optional
	Misses int64 `json:"misses,omitempty"`
	// applied and NotApplied count the lightweight transactions that succeeded by whether
	// their condition held ([applied] true) or the row existed already.
	// +optional
	Applied int64 `json:"applied,omitempty"`
	// notApplied counts the lightweight transactions whose row existed already.
	// +optional
	NotApplied int64 `json:"notApplied,omitempty"`
}
