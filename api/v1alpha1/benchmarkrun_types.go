package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.writeConsistency) || !has(self.schema) || !has(self.schema.replication) || !has(self.schema.replication.factor) || has(self.schema.replication.datacenters) || (self.workload.writeConsistency != 'TWO' || self.schema.replication.factor >= 2) && (self.workload.writeConsistency != 'THREE' || self.schema.replication.factor >= 3)",message="workload.writeConsistency TWO needs schema.replication.factor 2 or more, and THREE needs 3 or more: Cassandra would answer every write Unavailable; raise the factor or lower the consistency"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.readConsistency) || !has(self.schema) || !has(self.schema.replication) || !has(self.schema.replication.factor) || has(self.schema.replication.datacenters) || (self.workload.readConsistency != 'TWO' || self.schema.replication.factor >= 2) && (self.workload.readConsistency != 'THREE' || self.schema.replication.factor >= 3)",message="workload.readConsistency TWO needs schema.replication.factor 2 or more, and THREE needs 3 or more: Cassandra would answer every read Unavailable; raise the factor or lower the consistency"
// +kubebuilder:validation:XValidation:rule="!has(self.workload) || !has(self.workload.operations) || !has(self.workload.writeConsistency) || self.workload.writeConsistency != 'EACH_QUORUM' || !self.workload.operations.exists(o, o.kind == 'insertIfNotExists') || (has(self.schema) && has(self.schema.replication) && has(self.schema.replication.strategy) && self.schema.replication.strategy == 'NetworkTopologyStrategy')",message="insertIfNotExists commits at workload.writeConsistency, and Cassandra refuses an EACH_QUORUM commit on a SimpleStrategy keyspace: set schema.replication.strategy to NetworkTopologyStrategy or choose another writeConsistency"
// +kubebuilder:validation:XValidation:rule="!has(self.datacenter) || !has(self.datacenter.size) || !has(self.schema) || !has(self.schema.replication) || !has(self.schema.replication.factor) || self.schema.replication.factor <= self.datacenter.size",message="schema.replication.factor is above datacenter.size: Cassandra would keep fewer replicas than asked; lower the factor or raise datacenter.size"
// +kubebuilder:validation:XValidation:rule="!has(self.deadlines) || !has(self.deadlines.run) || !has(self.writers.duration) || (has(self.writers.warmup) ? self.writers.warmup : duration('0s')) + self.writers.duration < self.deadlines.run",message="deadlines.run must be longer than writers.warmup plus writers.duration, or the writers cannot finish before it: raise deadlines.run, or leave it unset (warmup + duration + 10m)"
// +kubebuilder:validation:XValidation:rule="!has(self.deadlines) || !has(self.deadlines.run) || !has(self.writers.operations) || !has(self.writers.rate) || double(self.writers.operations) / double(self.writers.rate) + double((has(self.writers.warmup) ? self.writers.warmup : duration('0s')).getSeconds()) < double(self.deadlines.run.getSeconds())",message="writers.operations at writers.rate (after writers.warmup) take longer than deadlines.run, so the writers cannot finish before it: raise deadlines.run or the rate, or lower operations"
// +kubebuilder:validation:XValidation:rule="!has(self.deadlines) || !has(self.deadlines.run) || !has(self.writers.requestTimeout) || self.writers.requestTimeout < self.deadlines.run",message="writers.requestTimeout must be shorter than deadlines.run: one request would outlast the whole run"
// +kubebuilder:validation:XValidation:rule="!has(self.capacity) || has(self.writers.rate)",message="capacity searches from writers.rate: set writers.rate to the first rate to try"
// +kubebuilder:validation:XValidation:rule="!has(self.capacity) || has(self.writers.duration)",message="capacity runs each step for writers.duration: set writers.duration, not writers.operations"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptions) || has(self.writers.duration)",message="disruptions are timed inside the measured window: set writers.duration, not writers.operations",fieldPath=".disruptions"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptions) || !has(self.writers.duration) || self.disruptions.all(d, d.at < self.writers.duration)",message="every disruptions[].at must fall inside the measured window: make it shorter than writers.duration",fieldPath=".disruptions"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptions) || !has(self.datacenter) || !has(self.datacenter.size) || self.disruptions.all(d, d.node <= self.datacenter.size)",message="every disruptions[].node must be one of the datacenter's nodes, 1 to datacenter.size",fieldPath=".disruptions"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptions) || !has(self.capacity)",message="disruptions and capacity do not mix: a search's steps would each be judged with a fault inside some of them; run the disruptions in a run of their own",fieldPath=".disruptions"
// +kubebuilder:validation:XValidation:rule="has(self.datacenterRef) != has(self.datacenters)",message="spec takes exactly one of datacenterRef (one datacenter) or datacenters (several datacenters of one Cassandra cluster)"
// +kubebuilder:validation:XValidation:rule="!has(self.datacenters) || self.datacenters.map(d, has(d.writers) ? d.writers : 0).sum() == self.writers.replicas",message="the writers of spec.datacenters must add up to writers.replicas: each writer runs in one datacenter"
// +kubebuilder:validation:XValidation:rule="!has(self.datacenters) || !has(self.connection) || !has(self.connection.service)",message="connection.service sends every writer to one host, but spec.datacenters places writers in several datacenters, each connecting to its own: remove connection.service"
// +kubebuilder:validation:XValidation:rule="!has(self.datacenters) || !self.datacenters.exists(d, has(d.observers) && d.observers > 0) || (has(self.workload.writeRatio) && self.workload.writeRatio > 0 && (!has(self.workload.batchSize) || self.workload.batchSize == 1))",message="datacenters[].observers read back single-row inserts: set workload.writeRatio above 0 and workload.batchSize to 1"
// +kubebuilder:validation:XValidation:rule="!has(self.replicationLag) || (has(self.datacenters) && self.datacenters.exists(d, has(d.observers) && d.observers > 0))",message="replicationLag applies to observers: give a datacenter of spec.datacenters observers, or remove replicationLag"
// +kubebuilder:validation:XValidation:rule="(!has(self.datacenters) && !has(self.datacenterRef)) || !has(self.schema.replication.datacenters) || !has(self.workload.writeConsistency) || (self.workload.writeConsistency != 'LOCAL_ONE' && self.workload.writeConsistency != 'LOCAL_QUORUM') || (has(self.datacenters) ? self.datacenters.filter(d, has(d.writers) && d.writers > 0).map(d, d.name) : [self.datacenterRef.name]).all(n, self.schema.replication.datacenters.exists(r, r.name == n))",message="workload.writeConsistency LOCAL_ONE and LOCAL_QUORUM need replicas in the datacenter each writer runs in, and schema.replication.datacenters leaves out a datacenter with writers: add it to the replication, or move the writers"
// +kubebuilder:validation:XValidation:rule="(!has(self.datacenters) && !has(self.datacenterRef)) || !has(self.schema.replication.datacenters) || !has(self.workload.readConsistency) || (self.workload.readConsistency != 'LOCAL_ONE' && self.workload.readConsistency != 'LOCAL_QUORUM') || (has(self.datacenters) ? self.datacenters.filter(d, has(d.writers) && d.writers > 0).map(d, d.name) : [self.datacenterRef.name]).all(n, self.schema.replication.datacenters.exists(r, r.name == n))",message="workload.readConsistency LOCAL_ONE and LOCAL_QUORUM need replicas in the datacenter each writer runs in, and schema.replication.datacenters leaves out a datacenter with writers: add it to the replication, or move the writers"
// +kubebuilder:validation:XValidation:rule="!has(self.datacenters) || !has(self.schema.replication.datacenters) || self.datacenters.all(d, !has(d.observers) || d.observers == 0 || self.schema.replication.datacenters.exists(r, r.name == d.name))",message="datacenters[].observers read at LOCAL_ONE in their datacenter, which schema.replication.datacenters leaves out: no write would ever reach them; add it to the replication"
// +kubebuilder:validation:XValidation:rule="(!has(self.datacenters) && !has(self.datacenterRef)) || !has(self.schema.replication.datacenters) || !has(self.workload.writeConsistency) || self.workload.writeConsistency != 'EACH_QUORUM' || self.schema.replication.datacenters.all(r, (has(self.datacenters) ? self.datacenters.map(d, d.name) : [self.datacenterRef.name]).exists(n, n == r.name))",message="workload.writeConsistency EACH_QUORUM waits for a quorum in every datacenter of schema.replication.datacenters, and the run does not name one of them: add it to spec.datacenters, or write at LOCAL_QUORUM"
// +kubebuilder:validation:XValidation:rule="(!has(self.datacenters) && !has(self.datacenterRef)) || !has(self.schema.replication.datacenters) || !has(self.workload.readConsistency) || self.workload.readConsistency != 'EACH_QUORUM' || self.schema.replication.datacenters.all(r, (has(self.datacenters) ? self.datacenters.map(d, d.name) : [self.datacenterRef.name]).exists(n, n == r.name))",message="workload.readConsistency EACH_QUORUM waits for a quorum in every datacenter of schema.replication.datacenters, and the run does not name one of them: add it to spec.datacenters, or read at LOCAL_QUORUM"
// +kubebuilder:validation:XValidation:rule="(!has(self.datacenters) && !has(self.datacenterRef)) || !has(self.datacenter) || !has(self.datacenter.size) || !has(self.schema.replication.datacenters) || self.schema.replication.datacenters.all(r, !(has(self.datacenters) ? self.datacenters.map(d, d.name) : [self.datacenterRef.name]).exists(n, n == r.name) || r.factor <= self.datacenter.size)",message="a factor of schema.replication.datacenters is above datacenter.size, which each datacenter of the run gets: Cassandra would keep fewer replicas than asked; lower the factor or raise datacenter.size"
type BenchmarkRunSpec struct {
	// datacenterRef names the cass-operator CassandraDatacenter to benchmark. The datacenter must
	// carry the annotation cassbench.io/allow-benchmarks. A run across several datacenters
	// names them in datacenters instead.
	// +optional
	DatacenterRef *DatacenterReference `json:"datacenterRef,omitempty"`

	// datacenters are several datacenters of one Cassandra cluster to benchmark together, each
	// with the writers (and observers) that run in it (multidc_types.go); instead of
	// datacenterRef.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(d, !has(d.observers) || d.observers == 0 || self.exists(e, e.name != d.name && has(e.writers) && e.writers > 0))",message="datacenters[].observers measure how long other datacenters' writes take to reach theirs: give writers to another datacenter, or remove the observers"
	Datacenters []RunDatacenter `json:"datacenters,omitempty"`

	// replicationLag sets how the observers of datacenters measure replication lag
	// (multidc_types.go).
	// +optional
	ReplicationLag *ReplicationLagSpec `json:"replicationLag,omitempty"`

	// datacenter sizes and tunes the datacenter for the duration of the run.
	// +optional
	Datacenter *DatacenterTuning `json:"datacenter,omitempty"`

	// Optional sections are omitzero so that a Go client leaves an unset section out and the
	// section's CRD default applies: a zero WorkloadSpec would otherwise send writeRatio 0 and
	// readRatio 0, and a zero TableSpec a table that names neither a profile nor cql.

	// schema is the keyspace and table the writers load.
	// +optional
	// +kubebuilder:default={}
	Schema SchemaSpec `json:"schema,omitempty,omitzero"`

	// workload is what each operation does: the mix of writes and reads, consistency levels and
	// how keys and values are generated.
	// +optional
	// +kubebuilder:default={}
	Workload WorkloadSpec `json:"workload,omitempty,omitzero"`

	// writers is how many writer pods run, how hard each one pushes and for how long.
	// +required
	Writers WritersSpec `json:"writers,omitzero"`

	// connection overrides how writers reach and authenticate to Cassandra.
	// +optional
	Connection *ConnectionSpec `json:"connection,omitempty"`

	// deadlines bound how long each stage may take before the run fails.
	// +optional
	// +kubebuilder:default={}
	Deadlines Deadlines `json:"deadlines,omitempty,omitzero"`

	// baselines selects the earlier runs to judge this run against once it succeeds: it then
	// gets a Regressed condition, True when a figure (ops/s, write or read p50, p99, p99.9
	// response, timeouts per operation) is a significant regression against them, False when
	// none is, Unknown with too few. The test is cassbench gate's.
	// +optional
	Baselines *Baselines `json:"baselines,omitempty"`

	// capacity turns the run into a search for the highest rate that meets an objective
	// (capacity_types.go).
	// +optional
	Capacity *CapacitySpec `json:"capacity,omitempty"`

	// pricing gives every result a cost per million operations (cost_types.go).
	// +optional
	Pricing *Pricing `json:"pricing,omitempty"`
	// disruptions are faults the controller makes at times inside the measured window
	// (disruption_spec_types.go); results.disruptions gets each one's recovery figures. The
	// datacenter must carry cassbench.io/allow-disruptions="true".
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Disruptions []Disruption `json:"disruptions,omitempty"`
}

// Baselines are the runs a run is judged against.
type Baselines struct {
	// selector selects the baselines by label among the BenchmarkRuns of the run's namespace,
	// usually by cassbench.io/experiment. Only runs that succeeded and measured before this
	// one count, the newest 100 of them, in the order they measured.
	// +required
	Selector metav1.LabelSelector `json:"selector"`
	// minRuns is the fewest baselines to judge with; with fewer, Regressed is Unknown.
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=100
	MinRuns int32 `json:"minRuns,omitempty"`
}

// DatacenterReference names a CassandraDatacenter.
type DatacenterReference struct {
	// name of the CassandraDatacenter, a DNS-1123 subdomain as every object name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')`,message="datacenterRef.name must be a CassandraDatacenter's name: lower case letters, digits, '-' and '.', starting and ending with a letter or digit"
	Name string `json:"name"`

	// namespace of the CassandraDatacenter; defaults to the run's namespace. The datacenter must
	// list the run's namespace in its cassbench.io/allow-benchmarks annotation.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule=`self == '' || self.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')`,message="datacenterRef.namespace must be a namespace's name: lower case letters, digits and '-', starting and ending with a letter or digit"
	Namespace string `json:"namespace,omitempty"`
}

// Phase is a one-word summary of where a run is, derived from its conditions.
// +kubebuilder:validation:MaxLength=32
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
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions of the run: Succeeded, DatacenterReady, SchemaReady, WritersComplete, DatacenterRestored,
	// and kstatus' Ready, Reconciling and Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// phase summarises the conditions.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// startTime is when the run took the datacenter.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the run ended, successfully or not.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// resolved holds the defaults the controller chose, so a run can be repeated exactly.
	// +optional
	Resolved *ResolvedSettings `json:"resolved,omitempty"`

	// datacenter is what the run found and changed on the datacenter. A run across several
	// datacenters keeps here what setup found on the cluster (version, nodes, settings
	// verified) and the size of all it holds; what it took of each is in datacenters.
	// +optional
	Datacenter *DatacenterStatus `json:"datacenter,omitempty"`

	// datacenters are, for a run across several datacenters (spec.datacenters), what the run
	// took of each, in the order it takes them (namespace, then name): each entry is recorded
	// when its lock is taken, before anything changes that datacenter, so a restore gives back
	// every datacenter the run recorded, with its own originals.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Datacenters []DatacenterStatus `json:"datacenters,omitempty"`

	// writers counts the writer pods.
	// +optional
	Writers *WritersStatus `json:"writers,omitempty"`

	// progress of the measured window while writers run.
	// +optional
	Progress *Progress `json:"progress,omitempty"`

	// results merged from every writer that reported.
	// +optional
	Results *Results `json:"results,omitempty"`
	// disruptions records what the controller did for each of spec.disruptions, in order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Disruptions []DisruptionRecord `json:"disruptions,omitempty"`

	// writerReports keep a row for each writer's pod that reported, stored the first time it
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
	// index of the writer.
	// +required
	Index int32 `json:"index"`
	// podUID of the pod that reported.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PodUID string `json:"podUID,omitempty"`
	// pod name.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Pod string `json:"pod,omitempty"`
	// exitCode of the writer container.
	// +optional
	ExitCode int32 `json:"exitCode,omitempty"`
	// reason the kubelet gave for the container's termination.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason,omitempty"`
	// summary is the writer's termination message, exactly as written. Only runs from
	// before configMap existed keep it here; the controller stores it in configMap.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Summary string `json:"summary,omitempty"`
	// configMap holds the writer's raw summary, under the key writer-<index>.json.gz
	// (gzip-compressed JSON of this row with its summary).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ConfigMap string `json:"configMap,omitempty"`
}

// ResolvedSettings are the values the controller filled in.
type ResolvedSettings struct {
	// image the writer and setup Jobs run: spec.writers.image, or the manager's own.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image,omitempty"`
	// service is the host the writers connect to: connection.service, or the datacenter's service.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Service string `json:"service,omitempty"`
	// port is the CQL port the writers connect to.
	// +optional
	Port int32 `json:"port,omitempty"`
	// credentialsSecret names the Secret the writers authenticate with, in Namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CredentialsSecret string `json:"credentialsSecret,omitempty"`
	// namespace the run's Jobs, and the datacenter it benchmarks, are in.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// WritersStatus counts writer pods by state.
type WritersStatus struct {
	// jobName is the name of the writer Job.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	JobName string `json:"jobName,omitempty"`
	// replicas is the number of writer pods the Job runs.
	// +required
	Replicas int32 `json:"replicas"`
	// active is the number of writer pods running.
	// +required
	Active int32 `json:"active"`
	// succeeded is the number of writer pods that finished successfully.
	// +required
	Succeeded int32 `json:"succeeded"`
	// failed is the number of writer pods that failed.
	// +required
	Failed int32 `json:"failed"`
}

// Progress of a running measured window.
type Progress struct {
	// elapsedSeconds of the measured window so far.
	// +required
	ElapsedSeconds int64 `json:"elapsedSeconds"`
	// percent of the measured window done, for runs bounded by duration.
	// +optional
	Percent int32 `json:"percent,omitempty"`
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
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes one experiment: which datacenter, how to size and tune it, what schema to
	// load, and how many writers drive which workload for how long. It is immutable.
	// +required
	Spec BenchmarkRunSpec `json:"spec,omitzero"`
	// status is what the run did and measured.
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
