package v1alpha1

// ConsistencyLevel is a CQL consistency level.
// +kubebuilder:validation:Enum=ANY;ONE;TWO;THREE;QUORUM;ALL;LOCAL_QUORUM;EACH_QUORUM;LOCAL_ONE
type ConsistencyLevel string

// ReadPath is how reads find rows.
// +kubebuilder:validation:Enum=partition;row;index
type ReadPath string

const (
	// ReadPartition reads a whole partition by its key.
	ReadPartition ReadPath = "partition"
	// ReadRow reads one row by its full primary key.
	ReadRow ReadPath = "row"
	// ReadIndex reads through the first secondary index of the schema.
	ReadIndex ReadPath = "index"
)

// BatchType is the CQL batch type for batched writes.
// +kubebuilder:validation:Enum=unlogged;logged
type BatchType string

// Cassandra refuses counter writes at ANY (ConsistencyLevel.validateCounterForWrite), hence
// the rule of WorkloadSpec on counterIncrement.

// WorkloadSpec is what one operation does.
// +kubebuilder:validation:XValidation:rule="!has(self.writeRatio) || !has(self.readRatio) || self.writeRatio + self.readRatio > 0 || (has(self.operations) && self.operations.size() > 0)",message="workload.writeRatio and workload.readRatio must not both be 0 without workload.operations: set writeRatio, readRatio or both above 0, or list operations"
// +kubebuilder:validation:XValidation:rule="!has(self.operations) || !has(self.batchSize) || self.batchSize == 1 || self.operations.all(o, o.kind != 'insertIfNotExists' && o.kind != 'counterIncrement')",message="insertIfNotExists and counterIncrement write one row per operation: set workload.batchSize to 1 or remove them from workload.operations"
// +kubebuilder:validation:XValidation:rule="!has(self.operations) || !has(self.writeConsistency) || self.writeConsistency != 'ANY' || self.operations.all(o, o.kind != 'counterIncrement')",message="counterIncrement runs at workload.writeConsistency, and Cassandra refuses counter writes at ANY: set writeConsistency to ONE, LOCAL_ONE or higher"
// +kubebuilder:validation:XValidation:rule="!has(self.keyZipfExponent) || (has(self.keyDistribution) && self.keyDistribution == 'zipf')",message="workload.keyZipfExponent applies to keyDistribution zipf: set keyDistribution: zipf or remove keyZipfExponent"
// +kubebuilder:validation:XValidation:rule="!has(self.verifyReads) || !self.verifyReads || (has(self.readPath) && self.readPath == 'row')",message="workload.verifyReads compares the one row a read targets: set readPath: row"
// +kubebuilder:validation:XValidation:rule="!has(self.readLimit) || !has(self.readPath) || self.readPath != 'row'",message="workload.readLimit applies to partition and index reads, and a row read returns one row: remove readLimit or set readPath to partition or index"
type WorkloadSpec struct {
	// writeRatio and ReadRatio weigh the operation mix: 3 and 1 mean 75% writes.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	WriteRatio int32 `json:"writeRatio"`

	// readRatio is the share of reads; see writeRatio.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	ReadRatio int32 `json:"readRatio"`

	// writeConsistency of writes.
	// +optional
	// +kubebuilder:default=LOCAL_ONE
	WriteConsistency ConsistencyLevel `json:"writeConsistency,omitempty"`

	// readConsistency of reads and scans; not ANY, which Cassandra takes only for writes.
	// +optional
	// +kubebuilder:default=LOCAL_ONE
	// +kubebuilder:validation:XValidation:rule="self != 'ANY'",message="workload.readConsistency must not be ANY: Cassandra takes ANY only for writes and refuses every read at it; use ONE or LOCAL_ONE"
	ReadConsistency ConsistencyLevel `json:"readConsistency,omitempty"`

	// readPath is how reads find rows.
	// +optional
	// +kubebuilder:default=partition
	ReadPath ReadPath `json:"readPath,omitempty"`

	// readLimit caps the rows a partition or index read returns (CQL LIMIT), as a query for
	// the newest rows of a partition clustered newest first does. Unset reads every row the
	// path finds; a row read finds one row and takes no limit.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ReadLimit int32 `json:"readLimit,omitempty"`

	// partitions is the number of distinct partition keys, shared out across writers; 0 means
	// as many as operations (every write a new partition).
	// +optional
	// +kubebuilder:validation:Minimum=0
	Partitions int64 `json:"partitions,omitempty"`

	// rowsPerPartition is the number of clustering rows each partition gets.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	RowsPerPartition int32 `json:"rowsPerPartition,omitempty"`

	// keyDistribution is how operations pick partitions.
	// +optional
	// +kubebuilder:default=uniform
	KeyDistribution Distribution `json:"keyDistribution,omitempty"`

	// keyZipfExponent is the exponent of keyDistribution zipf, a decimal above 0 (e.g.
	// "0.99", "1.2"): the larger, the more operations go to the first keys. 1.1 when unset.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]{1,3}(\.[0-9]{1,6})?$`
	// +kubebuilder:validation:XValidation:rule="double(self) > 0.0",message="workload.keyZipfExponent must be above 0, e.g. 0.99 or 1.2"
	// +kubebuilder:validation:MaxLength=32
	KeyZipfExponent string `json:"keyZipfExponent,omitempty"`

	// dataset is a set of rows the measured workload runs on: loaded first by this run
	// (load: true), or by an earlier run into the same keyspace, in which case setup checks
	// what that run recorded there before any load starts. Reads then target its rows.
	// +optional
	Dataset *DatasetSpec `json:"dataset,omitempty"`

	// verifyReads compares every row a read returns with the row the generator wrote there
	// and counts those that differ in status.results.reads.mismatches. Collection columns
	// are not compared.
	// +optional
	VerifyReads bool `json:"verifyReads,omitempty"`

	// valueSize bounds generated text and blob values in bytes.
	// +optional
	ValueSize *SizeRange `json:"valueSize,omitempty"`

	// batchSize is the number of rows per write; above 1, rows go in a batch.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	BatchSize int32 `json:"batchSize,omitempty"`

	// batchType of batched writes.
	// +optional
	// +kubebuilder:default=unlogged
	BatchType BatchType `json:"batchType,omitempty"`

	// ttlSeconds set on each write (USING TTL); 0 writes without one.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=630720000
	TTLSeconds int32 `json:"ttlSeconds,omitempty"`

	// seed makes generated data differ between experiments that are otherwise the same.
	// +optional
	Seed int64 `json:"seed,omitempty"`

	// operations are further weighted kinds of operation in the mix, next to writeRatio
	// (inserts) and readRatio (reads of readPath): updates, deletes, lightweight transactions,
	// counter increments and scans, each with its own figures in status.results.operationsByKind.
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +kubebuilder:validation:MaxItems=6
	Operations []Operation `json:"operations,omitempty"`
}

// DatasetSpec is the rows a run measures on.
type DatasetSpec struct {
	// rows in the dataset, over all writers. Row keys and values come from the spec's
	// schema, workload.seed, partitions, rowsPerPartition and key distribution, which is why
	// a dataset is recorded with them and a later run must have the same.
	// +required
	// +kubebuilder:validation:Minimum=1
	Rows int64 `json:"rows"`

	// load makes this run load the dataset before its warm-up: every writer writes its share
	// of the rows as fast as the cluster takes them, the figures go to status.results.load,
	// apart from the measured window's, and the dataset is recorded in the keyspace (table
	// cassbench_dataset). Without it an earlier run must have loaded the same dataset.
	// +optional
	Load bool `json:"load,omitempty"`
}

// SizeRange is an inclusive range of sizes in bytes.
// +kubebuilder:validation:XValidation:rule="!has(self.min) || !has(self.max) || self.min <= self.max",message="min must not exceed max"
type SizeRange struct {
	// min is the smallest size, in bytes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	Min *int32 `json:"min,omitempty"`
	// max is the largest size, in bytes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	Max *int32 `json:"max,omitempty"`
}
