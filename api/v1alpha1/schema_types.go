package v1alpha1

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
	// keyspace to create and write to. System keyspaces are refused.
	// +optional
	// +kubebuilder:default=cassbench
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`
	// +kubebuilder:validation:MaxLength=48
	// +kubebuilder:validation:XValidation:rule="!self.lowerAscii().startsWith('system') && !self.lowerAscii().startsWith('dse_') && self.lowerAscii() != 'solr_admin'",message="schema.keyspace must not be a system keyspace: names starting with system or dse_, and solr_admin, are Cassandra's own; choose another, e.g. cassbench"
	Keyspace string `json:"keyspace,omitempty"`

	// replication of the keyspace.
	// +optional
	// +kubebuilder:default={}
	Replication Replication `json:"replication,omitempty,omitzero"`

	// durableWrites of the keyspace.
	// +optional
	// +kubebuilder:default=true
	DurableWrites *bool `json:"durableWrites,omitempty"`

	// recreate drops the benchmark keyspace before the run so every run starts empty. Only a
	// keyspace cassbench created (every table's comment starts with "created by cassbench"),
	// or one the datacenter's annotation cassbench.io/allow-drop-keyspaces lists, is dropped;
	// any other is refused before anything is dropped. Without recreate an existing keyspace
	// and table are reused only when they are what the spec asks (replication, columns,
	// indexes, table options). With cassandra.yaml auto_snapshot on (the default) every drop
	// leaves a snapshot on each node: setup clears those (see keepSnapshots).
	// +optional
	Recreate bool `json:"recreate,omitempty"`

	// keepSnapshots keeps the snapshots that a recreating drop leaves on each node (with
	// auto_snapshot on) instead of clearing them through the management API: setup lists them
	// and says how to clear them (nodetool clearsnapshot).
	// +optional
	KeepSnapshots bool `json:"keepSnapshots,omitempty"`

	// table is a built-in profile or a CREATE TABLE statement.
	// +optional
	// +kubebuilder:default={profile: key-value}
	Table TableSpec `json:"table,omitempty,omitzero"`

	// columns sets how each column of a cql table is generated. Columns not listed get a
	// generator chosen by their type.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Columns []ColumnGenerator `json:"columns,omitempty"`

	// compaction strategy of the table.
	// +optional
	Compaction *Compaction `json:"compaction,omitempty"`

	// defaultTTLSeconds of the table; 0 keeps rows forever.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=630720000
	DefaultTTLSeconds *int32 `json:"defaultTTLSeconds,omitempty"`

	// tableOptions of the table (compression, caching, gc_grace_seconds, bloom filter), for a
	// built-in profile as for a cql table; a cql table must not also set them in its WITH.
	// +optional
	TableOptions *TableOptions `json:"tableOptions,omitempty"`

	// indexes to create on the table.
	// +optional
	// +listType=map
	// +listMapKey=column
	// +kubebuilder:validation:MaxItems=32
	Indexes []Index `json:"indexes,omitempty"`

	// csv is a file of values for the columns that name a csvColumn: row n of the run takes
	// row n of the file (after its header line), starting over at the end, as NoSQLBench's
	// CSV bindings do. The ConfigMap is mounted into the setup and writer pods; `cassbench
	// run` reads a local file given by --csv-file instead.
	// +optional
	CSV *CSVSource `json:"csv,omitempty"`
}

// CSVSource is a CSV file in a ConfigMap: a header line naming the columns, then one line per
// row.
type CSVSource struct {
	// configMapName is the ConfigMap in the run's namespace.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	ConfigMapName string `json:"configMapName"`

	// key of the file in the ConfigMap.
	// +required
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// Replication of the benchmark keyspace.
// +kubebuilder:validation:XValidation:rule="!has(self.datacenters) || (has(self.strategy) && self.strategy == 'NetworkTopologyStrategy')",message="schema.replication.datacenters sets a factor per datacenter, which only NetworkTopologyStrategy takes: set schema.replication.strategy to NetworkTopologyStrategy"
type Replication struct {
	// strategy is the replication class.
	// +optional
	// +kubebuilder:default=SimpleStrategy
	Strategy ReplicationStrategy `json:"strategy,omitempty"`

	// factor is the number of replicas (in this datacenter, for NetworkTopologyStrategy; in each
	// datacenter of spec.datacenters, unless datacenters sets them).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=32
	Factor int32 `json:"factor,omitempty"`

	// datacenters sets the NetworkTopologyStrategy factor per datacenter of the cluster
	// (multidc_types.go), in place of factor: e.g. dc1 3 and dc2 3. A datacenter listed here
	// must be a CassandraDatacenter of the run's cluster; it need not be one the run takes.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Datacenters []DatacenterReplication `json:"datacenters,omitempty"`
}

// TableSpec is exactly one of a built-in profile or a CREATE TABLE statement.
// +kubebuilder:validation:XValidation:rule="has(self.profile) != has(self.cql)",message="schema.table takes exactly one of profile or cql"
type TableSpec struct {
	// profile is a built-in table and workload.
	// +optional
	Profile TableProfile `json:"profile,omitempty"`

	// cql is a CREATE TABLE statement. An unqualified table name is created in the keyspace.
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
	// class of the compaction strategy.
	// +required
	Class CompactionClass `json:"class"`

	// options of the strategy, e.g. {"sstable_size_in_mb": "160"}.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Options map[string]string `json:"options,omitempty"`
}

// TableOptions are CREATE TABLE options the seed experiments tuned.
type TableOptions struct {
	// compression sub-options, e.g. {"class": "LZ4Compressor", "chunk_length_in_kb": "16"},
	// or {"enabled": "false"} to store uncompressed.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Compression map[string]string `json:"compression,omitempty"`

	// caching of partition keys and rows, e.g. keys NONE to turn the key cache off.
	// +optional
	Caching *Caching `json:"caching,omitempty"`

	// gcGraceSeconds before tombstones can be purged.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=630720000
	GCGraceSeconds *int32 `json:"gcGraceSeconds,omitempty"`

	// bloomFilterFPChance is the bloom filter's false-positive chance, a decimal in (0, 1], e.g.
	// "0.01"; "1" turns the filter off.
	// +optional
	// +kubebuilder:validation:Pattern=`^(0\.[0-9]{1,6}|1(\.0{1,6})?)$`
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="double(self) > 0.0",message="bloomFilterFPChance must be above 0"
	BloomFilterFPChance string `json:"bloomFilterFPChance,omitempty"`
}

// Caching is the caching option of a table.
type Caching struct {
	// keys caches partition keys: ALL or NONE.
	// +optional
	// +kubebuilder:validation:Enum=ALL;NONE
	Keys string `json:"keys,omitempty"`

	// rowsPerPartition caches the first rows of each partition read: ALL, NONE or a count.
	// +optional
	// +kubebuilder:validation:Pattern=`^(ALL|NONE|[1-9][0-9]{0,8})$`
	// +kubebuilder:validation:MaxLength=16
	RowsPerPartition string `json:"rowsPerPartition,omitempty"`
}

// Index is a secondary index on one column.
type Index struct {
	// column to index. For a map column, the values are indexed.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`
	// +kubebuilder:validation:MaxLength=256
	Column string `json:"column"`

	// kind of index: a legacy secondary index or a storage-attached index.
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
	// name of the column.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// cardinality is the number of distinct values; 0 means as many as there are rows.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Cardinality int64 `json:"cardinality,omitempty"`

	// distribution of the values over the cardinality.
	// +optional
	Distribution Distribution `json:"distribution,omitempty"`

	// zipfExponent for the zipf distribution, a decimal greater than 1, e.g. "1.1".
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]{1,3}(\.[0-9]{1,6})?$`
	// +kubebuilder:validation:MaxLength=32
	ZipfExponent string `json:"zipfExponent,omitempty"`

	// csvColumn names the column of schema.csv (by its header) this column takes its values
	// from, parsed as the column's CQL type.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	CSVColumn string `json:"csvColumn,omitempty"`

	// minSize and MaxSize bound text and blob lengths in bytes, and collection element counts.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	MinSize *int32 `json:"minSize,omitempty"`

	// maxSize is the largest size; see minSize.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=16777216
	MaxSize *int32 `json:"maxSize,omitempty"`
}
