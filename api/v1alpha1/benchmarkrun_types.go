package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The last rules of BenchmarkRunSpec refuse what Cassandra, the apiserver or the run's own
// deadlines would certainly refuse later, after the run took (and perhaps resized) its
// datacenter: a consistency level that needs more replicas than the keyspace has (Cassandra
// answers Unavailable, ConsistencyLevel.blockFor), an EACH_QUORUM commit of a lightweight
// transaction on a keyspace that is not NetworkTopologyStrategy
// (ConsistencyLevel.validateForCasCommit), fewer nodes than replicas (which the run refuses
// before touching the datacenter), and a writers' window (warm-up, then duration, or
// operations at the open loop's rate) or a request longer than deadlines.run.

// BenchmarkRunSpec describes one experiment: which datacenter, how to size and tune it, what
// schema to load, and how many writers drive which workload for how long.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: a new experiment is a new BenchmarkRun"
// +kubebuilder:validation:XValidation:rule="!has(self.schema) || !has(self.schema.table) || !has(self.schema.table.profile) || self.schema.table.profile != 'counters' || !has(self.workload) || ((!has(self.workload.writeRatio) || self.workload.writeRatio == 0) && (!has(self.workload.operations) || self.workload.operations.all(o, o.kind != 'update' && o.kind != 'insertIfNotExists')))",message="the counters profile has only counter columns, which take counterIncrement, not inserts or updates: set workload.writeRatio to 0 and weigh counterIncrement in workload.operations"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.operations) || !self.workload.operations.exists(o, o.kind == 'counterIncrement') || !has(self.schema) || !has(self.schema.table) || !has(self.schema.table.profile) || self.schema.table.profile == 'counters'",message="counterIncrement needs a table with counter columns: set schema.table.profile to counters, or give schema.table.cql with counter columns"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.dataset) || (has(self.workload.dataset.load) && self.workload.dataset.load) || !has(self.schema) || !has(self.schema.recreate) || !self.schema.recreate",message="workload.dataset without load measures rows an earlier run loaded, which schema.recreate would drop: set schema.recreate: false, or dataset.load: true"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.writeConsistency) || !has(self.schema) || !has(self.schema.replication) || !has(self.schema.replication.factor) || (self.workload.writeConsistency != 'TWO' || self.schema.replication.factor >= 2) && (self.workload.writeConsistency != 'THREE' || self.schema.replication.factor >= 3)",message="workload.writeConsistency TWO needs schema.replication.factor 2 or more, and THREE needs 3 or more: Cassandra would answer every write Unavailable; raise the factor or lower the consistency"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.readConsistency) || !has(self.schema) || !has(self.schema.replication) || !has(self.schema.replication.factor) || (self.workload.readConsistency != 'TWO' || self.schema.replication.factor >= 2) && (self.workload.readConsistency != 'THREE' || self.schema.replication.factor >= 3)",message="workload.readConsistency TWO needs schema.replication.factor 2 or more, and THREE needs 3 or more: Cassandra would answer every read Unavailable; raise the factor or lower the consistency"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.operations) || !has(self.workload.writeConsistency) || self.workload.writeConsistency != 'EACH_QUORUM' || !self.workload.operations.exists(o, o.kind == 'insertIfNotExists') || (has(self.schema) && has(self.schema.replication) && has(self.schema.replication.strategy) && self.schema.replication.strategy == 'NetworkTopologyStrategy')",message="insertIfNotExists commits at workload.writeConsistency, and Cassandra refuses an EACH_QUORUM commit on a SimpleStrategy keyspace: set schema.replication.strategy to NetworkTopologyStrategy or choose another writeConsistency"
// +kubebuilder:validation:XValidation:rule="!has(self.datacenter) || !has(self.datacenter.size) || !has(self.schema) || !has(self.schema.replication) || !has(self.schema.replication.factor) || self.schema.replication.factor <= self.datacenter.size",message="schema.replication.factor is above datacenter.size: Cassandra would keep fewer replicas than asked; lower the factor or raise datacenter.size"
// +kubebuilder:validation:XValidation:rule="!has(self.deadlines) || !has(self.deadlines.run) || !has(self.writers.duration) || (has(self.writers.warmup) ? self.writers.warmup : duration('0s')) + self.writers.duration < self.deadlines.run",message="deadlines.run must be longer than writers.warmup plus writers.duration, or the writers cannot finish before it: raise deadlines.run, or leave it unset (warmup + duration + 10m)"
// +kubebuilder:validation:XValidation:rule="!has(self.deadlines) || !has(self.deadlines.run) || !has(self.writers.operations) || !has(self.writers.rate) || double(self.writers.operations) / double(self.writers.rate) + double((has(self.writers.warmup) ? self.writers.warmup : duration('0s')).getSeconds()) < double(self.deadlines.run.getSeconds())",message="writers.operations at writers.rate (after writers.warmup) take longer than deadlines.run, so the writers cannot finish before it: raise deadlines.run or the rate, or lower operations"
// +kubebuilder:validation:XValidation:rule="!has(self.deadlines) || !has(self.deadlines.run) || !has(self.writers.requestTimeout) || self.writers.requestTimeout < self.deadlines.run",message="writers.requestTimeout must be shorter than deadlines.run: one request would outlast the whole run"
type BenchmarkRunSpec struct {
	// DatacenterRef names the cass-operator CassandraDatacenter to benchmark. The datacenter must
	// carry the annotation cassbench.io/allow-benchmarks.
	// +required
	DatacenterRef DatacenterReference `json:"datacenterRef"`

	// Datacenter sizes and tunes the datacenter for the duration of the run.
	// +optional
	Datacenter *DatacenterTuning `json:"datacenter,omitempty"`

	// Optional sections are omitzero so that a Go client leaves an unset section out and the
	// section's CRD default applies: a zero WorkloadSpec would otherwise send writeRatio 0 and
	// readRatio 0, and a zero TableSpec a table that names neither a profile nor cql.

	// Schema is the keyspace and table the writers load.
	// +optional
	// +kubebuilder:default={}
	Schema SchemaSpec `json:"schema,omitempty,omitzero"`

	// Workload is what each operation does: the mix of writes and reads, consistency levels and
	// how keys and values are generated.
	// +optional
	// +kubebuilder:default={}
	Workload WorkloadSpec `json:"workload,omitempty,omitzero"`

	// Writers is how many writer pods run, how hard each one pushes and for how long.
	// +required
	Writers WritersSpec `json:"writers"`

	// Connection overrides how writers reach and authenticate to Cassandra.
	// +optional
	Connection *ConnectionSpec `json:"connection,omitempty"`

	// Deadlines bound how long each stage may take before the run fails.
	// +optional
	// +kubebuilder:default={}
	Deadlines Deadlines `json:"deadlines,omitempty,omitzero"`
}

// DatacenterReference names a CassandraDatacenter.
type DatacenterReference struct {
	// Name of the CassandraDatacenter, a DNS-1123 subdomain as every object name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')`,message="datacenterRef.name must be a CassandraDatacenter's name: lower case letters, digits, '-' and '.', starting and ending with a letter or digit"
	Name string `json:"name"`

	// Namespace of the CassandraDatacenter; defaults to the run's namespace. The datacenter must
	// list the run's namespace in its cassbench.io/allow-benchmarks annotation.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule=`self == '' || self.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')`,message="datacenterRef.namespace must be a namespace's name: lower case letters, digits and '-', starting and ending with a letter or digit"
	Namespace string `json:"namespace,omitempty"`
}

// DatacenterTuning is what the run changes on the datacenter. Every change is recorded and put
// back after the run unless KeepChanges is set.
type DatacenterTuning struct {
	// Size is the number of Cassandra nodes during the run.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Size *int32 `json:"size,omitempty"`

	// Config is deep-merged into the datacenter's spec.config, keyed as cass-operator takes it.
	// +optional
	Config *DatacenterConfig `json:"config,omitempty"`

	// KeepChanges leaves the datacenter sized and tuned as the run left it.
	// +optional
	KeepChanges bool `json:"keepChanges,omitempty"`
}

// DatacenterConfig holds the sections of a CassandraDatacenter's spec.config that a run may
// change. Each section is free-form and merged key by key into the datacenter's own.
type DatacenterConfig struct {
	// CassandraYaml settings, e.g. {"concurrent_writes": 64}. Every key is verified on every
	// node through system_views.settings before load starts.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	CassandraYaml *runtime.RawExtension `json:"cassandra-yaml,omitempty"`

	// JvmServerOptions, e.g. {"max_heap_size": "8G", "initial_heap_size": "8G"}.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	JvmServerOptions *runtime.RawExtension `json:"jvm-server-options,omitempty"`

	// Jvm11ServerOptions are JVM options for Java 11 images.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Jvm11ServerOptions *runtime.RawExtension `json:"jvm11-server-options,omitempty"`

	// Jvm17ServerOptions are JVM options for Java 17 images, e.g. the garbage collector.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Jvm17ServerOptions *runtime.RawExtension `json:"jvm17-server-options,omitempty"`

	// CassandraEnvSh settings for cassandra-env.sh.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	CassandraEnvSh *runtime.RawExtension `json:"cassandra-env-sh,omitempty"`
}

// ReplicationStrategy is a keyspace replication class.
// +kubebuilder:validation:Enum=SimpleStrategy;NetworkTopologyStrategy
type ReplicationStrategy string

const (
	SimpleStrategy          ReplicationStrategy = "SimpleStrategy"
	NetworkTopologyStrategy ReplicationStrategy = "NetworkTopologyStrategy"
)

// TableProfile is a built-in table and workload, one per seed experiment.
// +kubebuilder:validation:Enum=key-value;ip-by-country;ip-by-city;revisions;user-profile;user-wide;counters
type TableProfile string

const (
	// ProfileKeyValue is a bigint key and a blob value.
	ProfileKeyValue TableProfile = "key-value"
	// ProfileIPByCountry is the IP-range table partitioned by (country) alone: few, hot partitions.
	ProfileIPByCountry TableProfile = "ip-by-country"
	// ProfileIPByCity is the same table partitioned by (country, region, city).
	ProfileIPByCity TableProfile = "ip-by-city"
	// ProfileRevisions is a page-revision table with large compressible text blobs.
	ProfileRevisions TableProfile = "revisions"
	// ProfileUserProfile is a ~400-byte user-tracking record, usually written with a TTL.
	ProfileUserProfile TableProfile = "user-profile"
	// ProfileUserWide is the wide user table with collections, queried through secondary indexes.
	ProfileUserWide TableProfile = "user-wide"
	// ProfileCounters counts addresses per (country, region, city) in a counter column; it
	// takes counterIncrement operations, not inserts (writeRatio 0).
	ProfileCounters TableProfile = "counters"
)

// The last rule of SchemaSpec holds a table the cql qualifies with a keyspace to
// schema.keyspace, which the run creates, drops and checks: an unquoted name compares in any
// case, as Cassandra folds it, a quoted one exactly with the keyspace folded. The keyspace's
// own pattern (letters, digits, _) keeps it safe inside the expression.

// SchemaSpec is the keyspace and table a run writes to.
// +kubebuilder:validation:XValidation:rule="!has(self.columns) || (has(self.table) && has(self.table.cql))",message="schema.columns applies only to a table given as cql: remove columns or set schema.table.cql"
// +kubebuilder:validation:XValidation:rule="has(self.csv) == (has(self.columns) && self.columns.exists(c, has(c.csvColumn)))",message="schema.csv and a column's csvColumn go together: name the file in schema.csv and the CSV column in schema.columns[].csvColumn"
// +kubebuilder:validation:XValidation:rule=`!has(self.table) || !has(self.table.cql) || !self.table.cql.matches(r'^\s*(?i:create)\s+(?i:table)\s+((?i:if)\s+(?i:not)\s+(?i:exists)\s+)?("([^"]|"")*"|[a-zA-Z0-9_]+)\s*\.') || self.table.cql.matches('^\\s*(?i:create)\\s+(?i:table)\\s+((?i:if)\\s+(?i:not)\\s+(?i:exists)\\s+)?((?i:' + (has(self.keyspace) ? self.keyspace : 'cassbench') + ')|"' + (has(self.keyspace) ? self.keyspace : 'cassbench').lowerAscii() + '")\\s*\\.')`,message="schema.table.cql creates its table in another keyspace than schema.keyspace: leave the table name unqualified, or set schema.keyspace to that keyspace"
type SchemaSpec struct {
	// Keyspace to create and write to. System keyspaces are refused.
	// +optional
	// +kubebuilder:default=cassbench
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`
	// +kubebuilder:validation:MaxLength=48
	// +kubebuilder:validation:XValidation:rule="!self.lowerAscii().startsWith('system') && !self.lowerAscii().startsWith('dse_') && self.lowerAscii() != 'solr_admin'",message="schema.keyspace must not be a system keyspace: names starting with system or dse_, and solr_admin, are Cassandra's own; choose another, e.g. cassbench"
	Keyspace string `json:"keyspace,omitempty"`

	// Replication of the keyspace.
	// +optional
	// +kubebuilder:default={}
	Replication Replication `json:"replication,omitempty,omitzero"`

	// DurableWrites of the keyspace.
	// +optional
	// +kubebuilder:default=true
	DurableWrites *bool `json:"durableWrites,omitempty"`

	// Recreate drops the benchmark keyspace before the run so every run starts empty. Only a
	// keyspace cassbench created (every table's comment starts with "created by cassbench"),
	// or one the datacenter's annotation cassbench.io/allow-drop-keyspaces lists, is dropped;
	// any other is refused before anything is dropped. Without recreate an existing keyspace
	// and table are reused only when they are what the spec asks (replication, columns,
	// indexes, table options). With cassandra.yaml auto_snapshot on (the default) every drop
	// leaves a snapshot on each node: setup clears those (see keepSnapshots).
	// +optional
	Recreate bool `json:"recreate,omitempty"`

	// KeepSnapshots keeps the snapshots that a recreating drop leaves on each node (with
	// auto_snapshot on) instead of clearing them through the management API: setup lists them
	// and says how to clear them (nodetool clearsnapshot).
	// +optional
	KeepSnapshots bool `json:"keepSnapshots,omitempty"`

	// Table is a built-in profile or a CREATE TABLE statement.
	// +optional
	// +kubebuilder:default={profile: key-value}
	Table TableSpec `json:"table,omitempty,omitzero"`

	// Columns sets how each column of a cql table is generated. Columns not listed get a
	// generator chosen by their type.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Columns []ColumnGenerator `json:"columns,omitempty"`

	// Compaction strategy of the table.
	// +optional
	Compaction *Compaction `json:"compaction,omitempty"`

	// DefaultTTLSeconds of the table; 0 keeps rows forever.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=630720000
	DefaultTTLSeconds *int32 `json:"defaultTTLSeconds,omitempty"`

	// TableOptions of the table (compression, caching, gc_grace_seconds, bloom filter), for a
	// built-in profile as for a cql table; a cql table must not also set them in its WITH.
	// +optional
	TableOptions *TableOptions `json:"tableOptions,omitempty"`

	// Indexes to create on the table.
	// +optional
	// +listType=map
	// +listMapKey=column
	// +kubebuilder:validation:MaxItems=32
	Indexes []Index `json:"indexes,omitempty"`

	// CSV is a file of values for the columns that name a csvColumn: row n of the run takes
	// row n of the file (after its header line), starting over at the end, as NoSQLBench's
	// CSV bindings do. The ConfigMap is mounted into the setup and writer pods; `cassbench
	// run` reads a local file given by --csv-file instead.
	// +optional
	CSV *CSVSource `json:"csv,omitempty"`
}

// CSVSource is a CSV file in a ConfigMap: a header line naming the columns, then one line per
// row.
type CSVSource struct {
	// ConfigMapName is the ConfigMap in the run's namespace.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	ConfigMapName string `json:"configMapName"`

	// Key of the file in the ConfigMap.
	// +required
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// Replication of the benchmark keyspace.
type Replication struct {
	// Strategy is the replication class.
	// +optional
	// +kubebuilder:default=SimpleStrategy
	Strategy ReplicationStrategy `json:"strategy,omitempty"`

	// Factor is the number of replicas (in this datacenter, for NetworkTopologyStrategy).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=32
	Factor int32 `json:"factor,omitempty"`
}

// TableSpec is exactly one of a built-in profile or a CREATE TABLE statement.
// +kubebuilder:validation:XValidation:rule="has(self.profile) != has(self.cql)",message="schema.table takes exactly one of profile or cql"
type TableSpec struct {
	// Profile is a built-in table and workload.
	// +optional
	Profile TableProfile `json:"profile,omitempty"`

	// CQL is a CREATE TABLE statement. An unqualified table name is created in the keyspace.
	// +optional
	// +kubebuilder:validation:MaxLength=16384
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^\s*(?i:create)\s+(?i:table)\s[^;]*;?\s*$')`,message="schema.table.cql must be a single CREATE TABLE statement, with no other statement after a ';'"
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'(?i:primary)\s+(?i:key)')`,message="schema.table.cql must declare a PRIMARY KEY: Cassandra refuses a table without one"
	CQL string `json:"cql,omitempty"`
}

// CompactionClass is a Cassandra compaction strategy.
// +kubebuilder:validation:Enum=SizeTieredCompactionStrategy;LeveledCompactionStrategy;TimeWindowCompactionStrategy;UnifiedCompactionStrategy
type CompactionClass string

// Compaction of the benchmark table.
type Compaction struct {
	// Class of the compaction strategy.
	// +required
	Class CompactionClass `json:"class"`

	// Options of the strategy, e.g. {"sstable_size_in_mb": "160"}.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Options map[string]string `json:"options,omitempty"`
}

// TableOptions are CREATE TABLE options the seed experiments tuned.
type TableOptions struct {
	// Compression sub-options, e.g. {"class": "LZ4Compressor", "chunk_length_in_kb": "16"},
	// or {"enabled": "false"} to store uncompressed.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Compression map[string]string `json:"compression,omitempty"`

	// Caching of partition keys and rows, e.g. keys NONE to turn the key cache off.
	// +optional
	Caching *Caching `json:"caching,omitempty"`

	// GCGraceSeconds before tombstones can be purged.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=630720000
	GCGraceSeconds *int32 `json:"gcGraceSeconds,omitempty"`

	// BloomFilterFPChance, the bloom filter's false-positive chance, a decimal in (0, 1], e.g.
	// "0.01"; "1" turns the filter off.
	// +optional
	// +kubebuilder:validation:Pattern=`^(0\.[0-9]{1,6}|1(\.0{1,6})?)$`
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="double(self) > 0.0",message="bloomFilterFPChance must be above 0"
	BloomFilterFPChance string `json:"bloomFilterFPChance,omitempty"`
}

// Caching is the caching option of a table.
type Caching struct {
	// Keys caches partition keys: ALL or NONE.
	// +optional
	// +kubebuilder:validation:Enum=ALL;NONE
	Keys string `json:"keys,omitempty"`

	// RowsPerPartition caches the first rows of each partition read: ALL, NONE or a count.
	// +optional
	// +kubebuilder:validation:Pattern=`^(ALL|NONE|[1-9][0-9]{0,8})$`
	RowsPerPartition string `json:"rowsPerPartition,omitempty"`
}

// Index is a secondary index on one column.
type Index struct {
	// Column to index. For a map column, the values are indexed.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`
	Column string `json:"column"`

	// Kind of index: a legacy secondary index or a storage-attached index.
	// +optional
	// +kubebuilder:default=secondary
	// +kubebuilder:validation:Enum=secondary;sai
	Kind string `json:"kind,omitempty"`
}

// Distribution is how generated values are spread over their range.
// +kubebuilder:validation:Enum=sequence;uniform;zipf;normal
type Distribution string

const (
	DistributionSequence Distribution = "sequence"
	DistributionUniform  Distribution = "uniform"
	DistributionZipf     Distribution = "zipf"
	DistributionNormal   Distribution = "normal"
)

// ColumnGenerator sets how one column's values are generated.
// +kubebuilder:validation:XValidation:rule="!has(self.minSize) || !has(self.maxSize) || self.minSize <= self.maxSize",message="minSize must not exceed maxSize"
// +kubebuilder:validation:XValidation:rule="!has(self.csvColumn) || !(has(self.cardinality) || has(self.distribution) || has(self.zipfExponent) || has(self.minSize) || has(self.maxSize))",message="a column with csvColumn takes its values from the CSV file: remove cardinality, distribution, zipfExponent, minSize and maxSize"
type ColumnGenerator struct {
	// Name of the column.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`
	Name string `json:"name"`

	// Cardinality is the number of distinct values; 0 means as many as there are rows.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Cardinality int64 `json:"cardinality,omitempty"`

	// Distribution of the values over the cardinality.
	// +optional
	Distribution Distribution `json:"distribution,omitempty"`

	// ZipfExponent for the zipf distribution, a decimal greater than 1, e.g. "1.1".
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]{1,3}(\.[0-9]{1,6})?$`
	ZipfExponent string `json:"zipfExponent,omitempty"`

	// CSVColumn names the column of schema.csv (by its header) this column takes its values
	// from, parsed as the column's CQL type.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	CSVColumn string `json:"csvColumn,omitempty"`

	// MinSize and MaxSize bound text and blob lengths in bytes, and collection element counts.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	MinSize *int32 `json:"minSize,omitempty"`

	// MaxSize; see MinSize.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	MaxSize *int32 `json:"maxSize,omitempty"`
}

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
	// WriteRatio and ReadRatio weigh the operation mix: 3 and 1 mean 75% writes.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	WriteRatio int32 `json:"writeRatio"`

	// ReadRatio; see WriteRatio.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	ReadRatio int32 `json:"readRatio"`

	// WriteConsistency of writes.
	// +optional
	// +kubebuilder:default=LOCAL_ONE
	WriteConsistency ConsistencyLevel `json:"writeConsistency,omitempty"`

	// ReadConsistency of reads and scans; not ANY, which Cassandra takes only for writes.
	// +optional
	// +kubebuilder:default=LOCAL_ONE
	// +kubebuilder:validation:XValidation:rule="self != 'ANY'",message="workload.readConsistency must not be ANY: Cassandra takes ANY only for writes and refuses every read at it; use ONE or LOCAL_ONE"
	ReadConsistency ConsistencyLevel `json:"readConsistency,omitempty"`

	// ReadPath is how reads find rows.
	// +optional
	// +kubebuilder:default=partition
	ReadPath ReadPath `json:"readPath,omitempty"`

	// ReadLimit caps the rows a partition or index read returns (CQL LIMIT), as a query for
	// the newest rows of a partition clustered newest first does. Unset reads every row the
	// path finds; a row read finds one row and takes no limit.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ReadLimit int32 `json:"readLimit,omitempty"`

	// Partitions is the number of distinct partition keys, shared out across writers; 0 means
	// as many as operations (every write a new partition).
	// +optional
	// +kubebuilder:validation:Minimum=0
	Partitions int64 `json:"partitions,omitempty"`

	// RowsPerPartition is the number of clustering rows each partition gets.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	RowsPerPartition int32 `json:"rowsPerPartition,omitempty"`

	// KeyDistribution is how operations pick partitions.
	// +optional
	// +kubebuilder:default=uniform
	KeyDistribution Distribution `json:"keyDistribution,omitempty"`

	// KeyZipfExponent is the exponent of keyDistribution zipf, a decimal above 0 (e.g.
	// "0.99", "1.2"): the larger, the more operations go to the first keys. 1.1 when unset.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]{1,3}(\.[0-9]{1,6})?$`
	// +kubebuilder:validation:XValidation:rule="double(self) > 0.0",message="workload.keyZipfExponent must be above 0, e.g. 0.99 or 1.2"
	KeyZipfExponent string `json:"keyZipfExponent,omitempty"`

	// Dataset is a set of rows the measured workload runs on: loaded first by this run
	// (load: true), or by an earlier run into the same keyspace, in which case setup checks
	// what that run recorded there before any load starts. Reads then target its rows.
	// +optional
	Dataset *DatasetSpec `json:"dataset,omitempty"`

	// VerifyReads compares every row a read returns with the row the generator wrote there
	// and counts those that differ in status.results.reads.mismatches. Collection columns
	// are not compared.
	// +optional
	VerifyReads bool `json:"verifyReads,omitempty"`

	// ValueSize bounds generated text and blob values in bytes.
	// +optional
	ValueSize *SizeRange `json:"valueSize,omitempty"`

	// BatchSize is the number of rows per write; above 1, rows go in a batch.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	BatchSize int32 `json:"batchSize,omitempty"`

	// BatchType of batched writes.
	// +optional
	// +kubebuilder:default=unlogged
	BatchType BatchType `json:"batchType,omitempty"`

	// TTLSeconds set on each write (USING TTL); 0 writes without one.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=630720000
	TTLSeconds int32 `json:"ttlSeconds,omitempty"`

	// Seed makes generated data differ between experiments that are otherwise the same.
	// +optional
	Seed int64 `json:"seed,omitempty"`

	// Operations are further weighted kinds of operation in the mix, next to writeRatio
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
	// Rows in the dataset, over all writers. Row keys and values come from the spec's
	// schema, workload.seed, partitions, rowsPerPartition and key distribution, which is why
	// a dataset is recorded with them and a later run must have the same.
	// +required
	// +kubebuilder:validation:Minimum=1
	Rows int64 `json:"rows"`

	// Load makes this run load the dataset before its warm-up: every writer writes its share
	// of the rows as fast as the cluster takes them, the figures go to status.results.load,
	// apart from the measured window's, and the dataset is recorded in the keyspace (table
	// cassbench_dataset). Without it an earlier run must have loaded the same dataset.
	// +optional
	Load bool `json:"load,omitempty"`
}

// SizeRange is an inclusive range of sizes in bytes.
// +kubebuilder:validation:XValidation:rule="!has(self.min) || !has(self.max) || self.min <= self.max",message="min must not exceed max"
type SizeRange struct {
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	Min *int32 `json:"min,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	Max *int32 `json:"max,omitempty"`
}

// WritersSpec is the load: N pods, each with a number of requests in flight.
// +kubebuilder:validation:XValidation:rule="has(self.duration) != has(self.operations)",message="spec.writers takes exactly one of duration (e.g. 10m) or operations (a total count)"
type WritersSpec struct {
	// Replicas is the number of writer pods.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Replicas int32 `json:"replicas"`

	// Concurrency is the number of requests each writer keeps in flight.
	// +optional
	// +kubebuilder:default=32
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	Concurrency int32 `json:"concurrency,omitempty"`

	// Rate is the total operations per second across all writers (open loop). Unset runs closed
	// loop, as fast as Concurrency allows.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000000
	Rate *int64 `json:"rate,omitempty"`

	// Arrivals spaces an open loop's operations: Uniform at equal intervals (writers offset
	// from each other so they do not fire in phase), or Poisson with exponential gaps of the
	// same mean, as independent clients arrive. Only with rate.
	// +optional
	// +kubebuilder:default=Uniform
	Arrivals Arrivals `json:"arrivals,omitempty"`

	// Durations are Format=duration so that CEL compares them as durations: "10m" as stored
	// and "10m0s" as a Go client sends it back are equal, and the spec immutability rule lets
	// an unchanged spec through an Update. The pattern admits only what time.ParseDuration
	// reads, so every stored run decodes in Go.

	// Duration of the measured window, after Warmup.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Duration *metav1.Duration `json:"duration,omitempty"`

	// Operations is the total number of operations across all writers, after Warmup.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Operations *int64 `json:"operations,omitempty"`

	// Warmup runs load that is not measured before the measured window.
	// +optional
	// +kubebuilder:default="0s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	Warmup *metav1.Duration `json:"warmup,omitempty"`

	// RequestTimeout is the client-side timeout of one request.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	RequestTimeout *metav1.Duration `json:"requestTimeout,omitempty"`

	// Retries of a request that timed out or was refused as overloaded or unavailable.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Retries *int32 `json:"retries,omitempty"`

	// MaxErrorPercent aborts a writer whose failed operations exceed this share of all
	// operations (after at least 1000); unset never aborts.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxErrorPercent *int32 `json:"maxErrorPercent,omitempty"`

	// ConnectionsPerHost each writer opens.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	ConnectionsPerHost int32 `json:"connectionsPerHost,omitempty"`

	// DriverIO chooses how the writers' requests reach the driver's connections: Batched
	// sends whatever requests queued while a send was under way in one write and routes each
	// request to its replica itself (cassbench's own layer, the cheaper in client CPU), Stock
	// leaves both to the driver as it ships, to rule that layer out of a result.
	// +optional
	// +kubebuilder:default=Batched
	DriverIO DriverIO `json:"driverIO,omitempty"`

	// Image runs the writers and the setup Job; defaults to the manager's own image. It is an
	// image reference as the kubelet parses it (github.com/distribution/reference): the
	// kubelet refuses any other (InvalidImageName) and the pods never start.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule=`self == '' || (self.matches(r'^(?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]*[:A-F][a-fA-F0-9:]*\])(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[_.]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[_.]|__|[-]+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@(?:sha256:[a-f0-9]{64}|sha384:[a-f0-9]{96}|sha512:[a-f0-9]{128}))?$') && !self.matches(r'^[a-f0-9]{64}$'))`,message="writers.image must be an image reference, [registry[:port]/]path[:tag][@digest], e.g. registry.example.com/team/cassbench:1.4: the path in lower case letters, digits and separators, the tag at most 128 characters"
	Image string `json:"image,omitempty"`

	// ImagePullPolicy of the writer image.
	// +optional
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// Resources of each writer container. A CPU limit also sets how many threads a writer
	// runs on (GOMAXPROCS: the limit rounded down, at least 1); without one a writer uses every
	// CPU of its node. A writer is cheapest per operation on one CPU (limits.cpu: 1), and
	// load grows with replicas.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.requests) || !has(self.limits) || ['cpu', 'memory', 'ephemeral-storage'].all(r, !(r in self.requests) || !(r in self.limits) || !isQuantity(string(self.requests[r])) || !isQuantity(string(self.limits[r])) || quantity(string(self.requests[r])).compareTo(quantity(string(self.limits[r]))) <= 0)",message="writers.resources.requests must not exceed writers.resources.limits (cpu, memory, ephemeral-storage): the apiserver would refuse the writer Job; raise the limit or lower the request"
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// NodeSelector of writer pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations of writer pods.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// Affinity of writer pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
}

// ConnectionSpec overrides how writers reach Cassandra.
// +kubebuilder:validation:XValidation:rule="!has(self.service) || has(self.credentialsSecretRef)",message="connection.service needs connection.credentialsSecretRef: the datacenter's superuser credentials are only sent to the datacenter's own service"
type ConnectionSpec struct {
	// CredentialsSecretRef names a secret with keys username and password; defaults to the
	// datacenter's superuser secret, which is used only with the datacenter's own service.
	// +optional
	// +kubebuilder:validation:XValidation:rule=`has(self.name) && self.name.size() <= 253 && self.name.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')`,message="connection.credentialsSecretRef.name must name a Secret: lower case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters"
	CredentialsSecretRef *corev1.LocalObjectReference `json:"credentialsSecretRef,omitempty"`

	// Service is the host writers connect to; defaults to <cluster>-<dc>-service. Setting it
	// requires CredentialsSecretRef.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*\.?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$')`,message="connection.service must be a host name or an IP address, e.g. cassandra.db.svc, with no scheme or port: give the port in connection.port"
	Service string `json:"service,omitempty"`

	// Port of the CQL native protocol.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`
}

// Deadlines bound each stage of a run.
type Deadlines struct {
	// Prepare bounds waiting for the datacenter to exist and admit the run (counted from the
	// run's creation), and then resizing, restarting and setting it up (counted from taking
	// it). Time spent queued behind other runs does not count.
	// +optional
	// +kubebuilder:default="30m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Prepare *metav1.Duration `json:"prepare,omitempty"`

	// Run bounds the writers from Job creation to the last writer's exit; defaults to warm-up
	// plus duration plus 10 minutes, or 2 hours for a run bounded by operations, and an hour
	// more for a load stage (workload.dataset.load).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="self > duration('0s')",message="must be longer than 0s"
	Run *metav1.Duration `json:"run,omitempty"`
}

// DriverIO is how writers talk to the driver's connections.
// +kubebuilder:validation:Enum=Batched;Stock
type DriverIO string

const (
	DriverIOBatched DriverIO = "Batched"
	DriverIOStock   DriverIO = "Stock"
)

// Arrivals is how an open loop spaces its operations.
// +kubebuilder:validation:Enum=Uniform;Poisson
type Arrivals string

const (
	ArrivalsUniform Arrivals = "Uniform"
	ArrivalsPoisson Arrivals = "Poisson"
)

// Phase is a one-word summary of where a run is, derived from its conditions.
type Phase string

const (
	PhasePending   Phase = "Pending"
	PhaseQueued    Phase = "Queued"
	PhasePreparing Phase = "Preparing"
	PhaseSettingUp Phase = "SettingUp"
	PhaseRunning   Phase = "Running"
	PhaseRestoring Phase = "Restoring"
	PhaseSucceeded Phase = "Succeeded"
	PhaseFailed    Phase = "Failed"
)

// BenchmarkRunStatus is what the run did and measured.
type BenchmarkRunStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Succeeded, DatacenterReady, SchemaReady, WritersComplete, DatacenterRestored,
	// and kstatus' Ready, Reconciling and Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Phase summarises the conditions.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// StartTime is when the run took the datacenter.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// CompletionTime is when the run ended, successfully or not.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// Resolved holds the defaults the controller chose, so a run can be repeated exactly.
	// +optional
	Resolved *ResolvedSettings `json:"resolved,omitempty"`

	// Datacenter is what the run found and changed on the datacenter.
	// +optional
	Datacenter *DatacenterStatus `json:"datacenter,omitempty"`

	// Writers counts the writer pods.
	// +optional
	Writers *WritersStatus `json:"writers,omitempty"`

	// Progress of the measured window while writers run.
	// +optional
	Progress *Progress `json:"progress,omitempty"`

	// Results merged from every writer that reported.
	// +optional
	Results *Results `json:"results,omitempty"`

	// WriterReports keep a row for each writer's pod that reported, stored the first time it
	// is read, so that results survive the pod (a node drain, garbage collection) and are
	// merged from what was stored, never from pods that may belong to someone else. The
	// writer's raw summary is in the ConfigMap the row names (<run>-reports-<k>, owned by the
	// run, which keeps 200 writers each), written before the row: status stays small at a
	// thousand writers. Atomic, as only the controller writes it, whole: as a map, the
	// apiserver's managedFields would list every index, 130 KB at a thousand writers.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	WriterReports []WriterReport `json:"writerReports,omitempty"`
}

// WriterReport is what one writer pod left behind when it terminated.
type WriterReport struct {
	// Index of the writer.
	Index int32 `json:"index"`
	// PodUID of the pod that reported.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PodUID string `json:"podUID,omitempty"`
	// Pod name.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Pod string `json:"pod,omitempty"`
	// ExitCode of the writer container.
	// +optional
	ExitCode int32 `json:"exitCode,omitempty"`
	// Reason the kubelet gave for the container's termination.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason,omitempty"`
	// Summary is the writer's termination message, exactly as written. Only runs from
	// before configMap existed keep it here; the controller stores it in configMap.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Summary string `json:"summary,omitempty"`
	// ConfigMap holds the writer's raw summary, under the key writer-<index>.json.gz
	// (gzip-compressed JSON of this row with its summary).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ConfigMap string `json:"configMap,omitempty"`
}

// ResolvedSettings are the values the controller filled in.
type ResolvedSettings struct {
	Image             string `json:"image,omitempty"`
	Service           string `json:"service,omitempty"`
	Port              int32  `json:"port,omitempty"`
	CredentialsSecret string `json:"credentialsSecret,omitempty"`
	Namespace         string `json:"namespace,omitempty"`
}

// DatacenterStatus is what the run found on, and changed in, its datacenter.
type DatacenterStatus struct {
	// Name and Namespace of the datacenter.
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// OriginalSize is the datacenter's size before the run.
	// +optional
	OriginalSize *int32 `json:"originalSize,omitempty"`
	// OriginalConfig is the datacenter's spec.config before the run, exactly as it was.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	OriginalConfig *runtime.RawExtension `json:"originalConfig,omitempty"`
	// HadConfig tells whether the datacenter had a spec.config at all before the run.
	// +optional
	HadConfig bool `json:"hadConfig,omitempty"`
	// Size during the run.
	// +optional
	Size int32 `json:"size,omitempty"`
	// Changed is true once the run has seen the datacenter at its size and config and they
	// differ from the originals. Restoring does not depend on it: it compares the datacenter
	// with the originals and the run's target.
	// +optional
	Changed bool `json:"changed,omitempty"`
	// PatchedGeneration is the datacenter's generation when the run first saw it at its size
	// and config; readiness waits for cass-operator to observe it, and any later generation
	// while the run holds the datacenter is someone else's change (drift).
	// +optional
	PatchedGeneration int64 `json:"patchedGeneration,omitempty"`
	// RestoredGeneration is the generation the restore patch produced.
	// +optional
	RestoredGeneration int64 `json:"restoredGeneration,omitempty"`
	// CassandraVersion reported by the setup Job.
	// +optional
	CassandraVersion string `json:"cassandraVersion,omitempty"`
	// Nodes seen by the setup Job.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`
	// SettingsVerified lists the cassandra-yaml settings found on every node, then the
	// jvm*-server-options keys (heap, collector) found so.
	// +optional
	// +listType=atomic
	SettingsVerified []string `json:"settingsVerified,omitempty"`
	// SettingsUnverified lists the JVM settings the run asked for that could not be read on
	// some node, with why: the result is not attributed to them as verified.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	SettingsUnverified []string `json:"settingsUnverified,omitempty"`
}

// WritersStatus counts writer pods by state.
type WritersStatus struct {
	JobName   string `json:"jobName,omitempty"`
	Replicas  int32  `json:"replicas"`
	Active    int32  `json:"active"`
	Succeeded int32  `json:"succeeded"`
	Failed    int32  `json:"failed"`
}

// Progress of a running measured window.
type Progress struct {
	// ElapsedSeconds of the measured window so far.
	ElapsedSeconds int64 `json:"elapsedSeconds"`
	// Percent of the measured window done, for runs bounded by duration.
	// +optional
	Percent int32 `json:"percent,omitempty"`
}

// Results are the writers' measurements, merged. Counts are exact; every percentile comes
// from merged sketches and carries the relative accuracy it was computed at.
type Results struct {
	// WindowStart and WindowEnd bound the measured window that every measuring writer
	// shares: the latest first send to the earliest last completion, on Cassandra's clock
	// (each writer's clock corrected by its measured offset). A writer that failed before
	// sending cannot move it.
	WindowStart metav1.Time `json:"windowStart"`
	WindowEnd   metav1.Time `json:"windowEnd"`
	// WindowMillis is the length of that window.
	WindowMillis int64 `json:"windowMillis"`
	// StartSpreadMillis is how far apart the writers' first sends were, on Cassandra's clock.
	// +optional
	StartSpreadMillis int64 `json:"startSpreadMillis,omitempty"`
	// MaxClockOffsetMillis is the largest offset of a writer's clock from Cassandra's, as
	// measured at the start barrier (already corrected for in the window).
	// +optional
	MaxClockOffsetMillis int64 `json:"maxClockOffsetMillis,omitempty"`
	// Writers that reported, of the replicas.
	WritersReported int32 `json:"writersReported"`
	// Operations that succeeded: writes, reads and workload.operations.
	Operations int64 `json:"operations"`
	// OpsPerSecond is the achieved throughput: the successful operations that completed
	// inside the window every writer measured (windowStart..windowEnd), over that window
	// (a writer's completions are placed in time by its timeline). Never the target.
	OpsPerSecond int64 `json:"opsPerSecond"`
	// OperationsOutsideWindow are the successful operations that completed before or after
	// the common window (writers that started or ended apart): counted in operations, not
	// in opsPerSecond. Each writer's own rate over its own window is in perWriter.
	// +optional
	OperationsOutsideWindow int64 `json:"operationsOutsideWindow,omitempty"`
	// Schedule tells how an open loop kept to its rate; absent in a closed loop.
	// +optional
	Schedule *ScheduleResults `json:"schedule,omitempty"`
	// Load is the load stage's figures (workload.dataset.load), none of which count in the
	// window's.
	// +optional
	Load *LoadResults `json:"load,omitempty"`
	// Writes and Reads, each with their own latencies.
	// +optional
	Writes *OperationResults `json:"writes,omitempty"`
	// +optional
	Reads *OperationResults `json:"reads,omitempty"`
	// OperationsByKind has the figures of each kind of workload.operations; Operations,
	// OpsPerSecond, Errors and the other totals count them too.
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +kubebuilder:validation:MaxItems=6
	OperationsByKind []KindResults `json:"operationsByKind,omitempty"`
	// Errors counts failed operations by kind: what the application saw after retries.
	Errors ErrorCounts `json:"errors"`
	// AttemptErrors counts failed attempts by kind, retried or not: what the cluster did.
	AttemptErrors ErrorCounts `json:"attemptErrors"`
	// Attempts made in all: operations plus retries.
	Attempts int64 `json:"attempts"`
	// TimeoutsPerOperation is operations that ended in a timeout (write, read or client)
	// over operations that ended, as a decimal string: the share the application sees.
	TimeoutsPerOperation string `json:"timeoutsPerOperation"`
	// TimeoutsPerAttempt is attempts that timed out over attempts: the share of requests
	// the cluster did not answer in time, which retries hide from TimeoutsPerOperation.
	TimeoutsPerAttempt string `json:"timeoutsPerAttempt"`
	// Retries made after a timeout or refusal.
	Retries int64 `json:"retries"`
	// Bytes written and read in values.
	Bytes int64 `json:"bytes"`
	// Fastest and Slowest writer by operations per second.
	// +optional
	Fastest *WriterResult `json:"fastest,omitempty"`
	// +optional
	Slowest *WriterResult `json:"slowest,omitempty"`
	// PerWriter lists every writer's own figures. Atomic for the reason writerReports is.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	PerWriter []WriterResult `json:"perWriter,omitempty"`
	// Timeline is the window interval by interval, all writers together.
	// +optional
	Timeline *Timeline `json:"timeline,omitempty"`
	// Sketches are the merged latency sketches, encoded, so that repeats and experiments can
	// be merged and compared later without the writers.
	// +optional
	Sketches *ResultSketches `json:"sketches,omitempty"`
	// Server is what the Cassandra nodes did during the window.
	// +optional
	Server *ServerResults `json:"server,omitempty"`
	// Bottleneck says whether the writers or the cluster limited the run, and why.
	// +optional
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
}

// ScheduleResults is how an open loop kept to its rate, over all writers.
type ScheduleResults struct {
	// TargetOpsPerSecond is the rate asked for.
	TargetOpsPerSecond int64 `json:"targetOpsPerSecond"`
	// Due is the operations the timetable had in the window.
	Due int64 `json:"due"`
	// Missed operations were due and never started: more than the backlog bound overdue
	// (one interval per request in flight, at least 100 ms), or still waiting at the end.
	// They are never sent after the window.
	Missed int64 `json:"missed"`
	// BacklogAtEnd is the part of Missed still waiting when the window closed.
	BacklogAtEnd int64 `json:"backlogAtEnd"`
	// LateOver1ms and LateOverTenthInterval count operations sent more than 1 ms, and more
	// than a tenth of the interval between a writer's operations, after their intended start.
	LateOver1ms           int64 `json:"lateOver1ms"`
	LateOverTenthInterval int64 `json:"lateOverTenthInterval"`
	// DrainMillis is how long the operations in flight at the window's end took to finish.
	DrainMillis int64 `json:"drainMillis"`
	// Lag is the schedule lag: actual send minus intended start. Response latency includes
	// it; service latency does not.
	Lag Latency `json:"lag"`
}

// Timeline is a run's window interval by interval.
type Timeline struct {
	// IntervalMillis is the length of each point (the last may be shorter).
	IntervalMillis int64 `json:"intervalMillis"`
	// Points, from the first writer's first send on Cassandra's clock (windowStart less
	// startSpreadMillis); at most 120. Each writer's points are placed where they happened
	// on that clock, shared among the merged points they overlap.
	// +kubebuilder:validation:MaxItems=120
	// +listType=atomic
	Points []TimelinePoint `json:"points"`
	// WritersMissing counts the measuring writers that sent no timeline, so are not in
	// Points; FirstWritersMissing names the first 16 by index.
	// +optional
	WritersMissing int32 `json:"writersMissing,omitempty"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	FirstWritersMissing []int32 `json:"firstWritersMissing,omitempty"`
}

// TimelinePoint is one interval of a timeline.
type TimelinePoint struct {
	// OffsetMillis is the interval's start from the timeline's.
	OffsetMillis int64 `json:"offsetMillis"`
	// Operations that completed in the interval, and their rate.
	Operations   int64 `json:"operations"`
	OpsPerSecond int64 `json:"opsPerSecond"`
	// Errors: operations that completed in the interval and failed.
	Errors int64 `json:"errors"`
	// P99Micros is the highest p99 response latency any writer had in the interval (to
	// about 5%): an upper bound on the p99 of the interval.
	P99Micros int64 `json:"p99Micros"`
}

// ResultSketches are merged latency sketches as base64 of their compact binary encoding.
type ResultSketches struct {
	// +optional
	WritesResponse string `json:"writesResponse,omitempty"`
	// +optional
	WritesService string `json:"writesService,omitempty"`
	// +optional
	ReadsResponse string `json:"readsResponse,omitempty"`
	// +optional
	ReadsService string `json:"readsService,omitempty"`
	// +optional
	Lag string `json:"lag,omitempty"`
	// Kinds are the response sketches of the kinds of workload.operations.
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +kubebuilder:validation:MaxItems=6
	Kinds []KindSketch `json:"kinds,omitempty"`
}

// OperationResults are the counts and latencies of one kind of operation.
type OperationResults struct {
	// Operations that succeeded, and their achieved rate.
	Operations   int64 `json:"operations"`
	OpsPerSecond int64 `json:"opsPerSecond"`
	// Failed operations, after retries.
	// +optional
	Failed int64 `json:"failed,omitempty"`
	// Response latency is measured from the operation's intended start (open loop) or its
	// first send (closed loop), so it includes time spent queued behind a stall and the
	// schedule lag. It covers every operation, failed ones too (a timeout after every retry
	// is among the slowest), as does Service latency, measured from the first send.
	Response Latency `json:"response"`
	Service  Latency `json:"service"`
	// Failure is the response latency of the failed operations alone: the time to failure.
	// +optional
	Failure *Latency `json:"failure,omitempty"`
	// Rows returned by reads, Misses (reads that returned no row) and MissRatio, misses over
	// successful reads as a decimal string.
	// +optional
	Rows int64 `json:"rows,omitempty"`
	// +optional
	Misses int64 `json:"misses,omitempty"`
	// +optional
	MissRatio string `json:"missRatio,omitempty"`
	// Mismatches are rows a read returned that differ from the row written there, counted
	// with workload.verifyReads.
	// +optional
	Mismatches int64 `json:"mismatches,omitempty"`
}

// LoadResults are the load stage's figures, kept apart from the measured window's.
type LoadResults struct {
	// Rows written, of RowsWanted.
	Rows       int64 `json:"rows"`
	RowsWanted int64 `json:"rowsWanted"`
	// Failed inserts, after retries: rows the dataset may lack.
	// +optional
	Failed int64 `json:"failed,omitempty"`
	// Bytes of values written.
	// +optional
	Bytes int64 `json:"bytes,omitempty"`
	// Millis is how long the slowest writer took to load its share.
	Millis int64 `json:"millis"`
	// RowsPerSecond is the rows loaded over Millis.
	RowsPerSecond int64 `json:"rowsPerSecond"`
}

// Latency percentiles in microseconds.
type Latency struct {
	P50  int64 `json:"p50"`
	P90  int64 `json:"p90"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p999"`
	Max  int64 `json:"max"`
	Mean int64 `json:"mean"`
	// RelativeAccuracy bounds the relative error of every percentile above, as a decimal
	// string ("0.01": within 1% of a value at that rank). Max and mean are exact.
	// +optional
	RelativeAccuracy string `json:"relativeAccuracy,omitempty"`
	// UpperBounds names the percentiles that are only upper bounds: writers whose reports
	// had to shrink kept the tail at full accuracy and folded the low end together.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	UpperBounds []string `json:"upperBounds,omitempty"`
}

// ErrorCounts are failures by kind.
type ErrorCounts struct {
	WriteTimeout  int64 `json:"writeTimeout"`
	ReadTimeout   int64 `json:"readTimeout"`
	Unavailable   int64 `json:"unavailable"`
	Overloaded    int64 `json:"overloaded"`
	ClientTimeout int64 `json:"clientTimeout"`
	Other         int64 `json:"other"`
}

// WriterResult is one writer's figures.
type WriterResult struct {
	Index int32 `json:"index"`
	// Operations that succeeded, and their rate over the writer's own measured window.
	Operations   int64 `json:"operations"`
	OpsPerSecond int64 `json:"opsPerSecond"`
	Errors       int64 `json:"errors"`
	P99Micros    int64 `json:"p99Micros"`
	// ClockOffsetMillis is the writer's clock minus Cassandra's.
	// +optional
	ClockOffsetMillis int64  `json:"clockOffsetMillis,omitempty"`
	Outcome           string `json:"outcome,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=br,categories=cassbench
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Datacenter",type=string,JSONPath=`.spec.datacenterRef.name`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.datacenter.size`
// +kubebuilder:printcolumn:name="Writers",type=integer,JSONPath=`.spec.writers.replicas`
// +kubebuilder:printcolumn:name="Ops/s",type=integer,JSONPath=`.status.results.opsPerSecond`
// +kubebuilder:printcolumn:name="p99(us)",type=integer,JSONPath=`.status.results.writes.response.p99`
// +kubebuilder:printcolumn:name="Timeouts/op",type=string,JSONPath=`.status.results.timeoutsPerOperation`
// +kubebuilder:printcolumn:name="Timeouts/attempt",type=string,JSONPath=`.status.results.timeoutsPerAttempt`,priority=1
// +kubebuilder:printcolumn:name="Bottleneck",type=string,JSONPath=`.status.results.bottleneck.verdict`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// BenchmarkRun is one Cassandra benchmark experiment against a CassandraDatacenter.
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 56",message="metadata.name must be at most 56 characters: it names the run's Jobs and labels their pods"
type BenchmarkRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec BenchmarkRunSpec `json:"spec"`
	// +optional
	Status BenchmarkRunStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BenchmarkRunList is a list of BenchmarkRuns.
type BenchmarkRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkRun `json:"items"`
}

func init() {
	register(&BenchmarkRun{}, &BenchmarkRunList{})
}
