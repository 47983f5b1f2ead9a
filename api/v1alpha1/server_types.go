package v1alpha1

// ServerResults are what the Cassandra nodes did during the measured window, read from their
// CQL virtual tables by the writers (each node by one writer) at the window's start and end
// and sampled in between. docs/server.md says where each figure comes from.
type ServerResults struct {
	// nodesRead is how many nodes were read at both ends of the window.
	// +required
	NodesRead int32 `json:"nodesRead"`
	// nodes lists each node's figures, the most telling first. A writer lists at most what
	// fits its summary; nodes it could not list count only in Total (NodesRead minus the
	// length of this list).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	Nodes []NodeServerResults `json:"nodes,omitempty"`
	// total sums every node read: counts add, peaks and latencies are the highest of any node.
	// +required
	Total NodeServerResults `json:"total"`
	// anomalies say in plain words what an operator would look at first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=256
	Anomalies []string `json:"anomalies,omitempty"`
	// errors say which nodes could not be read, and why.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=256
	Errors []string `json:"errors,omitempty"`
	// timeline is what the nodes did interval by interval, on the same origin as
	// results.timeline; absent where no writer sampled its nodes during the window.
	// +optional
	Timeline *ServerTimeline `json:"timeline,omitempty"`
}

// ServerTimeline is the nodes' figures per interval, all writers' nodes together, from the
// origin of results.timeline (the first writer's first send on Cassandra's clock).
type ServerTimeline struct {
	// intervalMillis is the length of each point: the coarsest of the writers' sampling
	// intervals (a tenth of the window, 0.5 s to 5 s), doubled while over 48 points.
	// +required
	IntervalMillis int64 `json:"intervalMillis"`
	// points are the intervals, each holding the samples that ended in it; intervals no sample ended in are
	// left out.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=48
	// +required
	Points []ServerTimelinePoint `json:"points"`
}

// ServerTimelinePoint is one interval of the server timeline.
type ServerTimelinePoint struct {
	// offsetMillis is the interval's start from the timeline's origin.
	// +required
	OffsetMillis int64 `json:"offsetMillis"`
	// pendingPeak is the most tasks waiting in one request stage of any node at a sample.
	// +required
	PendingPeak int64 `json:"pendingPeak"`
	// compactions and Flushes finished in the interval, over all nodes read.
	// +required
	Compactions int64 `json:"compactions"`
	// flushes finished in the interval, over all nodes read.
	// +required
	Flushes int64 `json:"flushes"`
	// gcPauses and GCMillis are the stop-the-world pauses in the gc logs (or the hsperfdata
	// counters) of the nodes that run on their writer's machine (the other nodes' are not in
	// the timeline).
	// +optional
	GCPauses int64 `json:"gcPauses,omitempty"`
	// gcMillis is the total of those pauses, in milliseconds.
	// +optional
	GCMillis int64 `json:"gcMillis,omitempty"`
	// hintsStored is the hints the nodes read wrote in the interval for replicas they could
	// not reach: their StorageMetrics TotalHints from the management API's metrics endpoint,
	// or, for a node on its writer's machine, the hint records added to its hints directory.
	// +optional
	HintsStored int64 `json:"hintsStored,omitempty"`
	// hintsDelivered is the hints the nodes read delivered in the interval: their
	// HintsService HintsSucceeded, or the records of the hints files their node deleted.
	// +optional
	HintsDelivered int64 `json:"hintsDelivered,omitempty"`
}

// NodeServerResults are one node's figures over the window (or all nodes', in Total).
type NodeServerResults struct {
	// node is the node's address; empty in Total.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Node string `json:"node,omitempty"`
	// datacenter is the node's Cassandra datacenter, as the writers' driver learnt it from
	// the ring, set when the nodes listed span several datacenters (a run across
	// datacenters); empty in Total, in a run of one datacenter, and where not known.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Datacenter string `json:"datacenter,omitempty"`
	// mutations and Reads this replica applied to the benchmark table in the window (the
	// table's local write and read counts): summed over nodes, the writes times the
	// replication factor.
	// +required
	Mutations int64 `json:"mutations"`
	// reads is the node's local read count of the benchmark table over the window.
	// +required
	Reads int64 `json:"reads"`
	// pendingPeak is the most tasks seen waiting in one request stage, PendingStage.
	// +required
	PendingPeak int64 `json:"pendingPeak"`
	// pendingStage is the request stage where PendingPeak was seen.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PendingStage string `json:"pendingStage,omitempty"`
	// blockedPeak is the most tasks seen blocked at once; Blocked counts tasks newly blocked.
	// Only stages off the shared executor pool can block: MutationStage, ReadStage and
	// Native-Transport-Requests queue instead (pendingPeak).
	// +required
	BlockedPeak int64 `json:"blockedPeak"`
	// blocked counts the tasks the node's request stages blocked over the window.
	// +required
	Blocked int64 `json:"blocked"`
	// dropped messages: internode messages expired or refused for overload, plus the drops
	// of its own requests the node logged (where its log is readable).
	// +required
	Dropped int64 `json:"dropped"`
	// hints are hint files waiting at the window's end.
	// +required
	Hints int64 `json:"hints"`
	// compactions finished in the window; the backlog (compactions running or queued) at its
	// start, end and highest sample; the bytes running compactions still had to read.
	// +required
	Compactions int64 `json:"compactions"`
	// compactionBacklogBefore is the compactions running or queued at the window's start.
	// +required
	CompactionBacklogBefore int64 `json:"compactionBacklogBefore"`
	// compactionBacklogAfter is the compactions running or queued at the window's end.
	// +required
	CompactionBacklogAfter int64 `json:"compactionBacklogAfter"`
	// compactionBacklogPeak is the highest compaction backlog sampled in the window.
	// +required
	CompactionBacklogPeak int64 `json:"compactionBacklogPeak"`
	// compactionBytesLeft is the bytes running compactions still had to read at the window's end.
	// +required
	CompactionBytesLeft int64 `json:"compactionBytesLeft"`
	// sstables of the benchmark table over the window, the backlog estimate that moves when
	// every compactor is busy (the backlog above then stays near 0); absent where no source
	// gives them.
	// +optional
	SSTables *NodeSSTableResults `json:"sstables,omitempty"`
	// flushes of memtables to SSTables.
	// +required
	Flushes int64 `json:"flushes"`
	// tableMiBBefore and TableMiBAfter are the benchmark table's live disk space; DiskMiB all
	// tables' at the end (whole MiB).
	// +required
	TableMiBBefore int64 `json:"tableMiBBefore"`
	// tableMiBAfter is the benchmark table's live disk space at the end, in whole MiB.
	// +required
	TableMiBAfter int64 `json:"tableMiBAfter"`
	// diskMiB is all tables' live disk space at the end, in whole MiB.
	// +required
	DiskMiB int64 `json:"diskMiB"`
	// coordinatorWriteP99Micros and CoordinatorReadP99Micros are the node's p99 as
	// coordinator for the table at the window's end: Cassandra's exponentially decaying
	// figure, weighted to the last minutes, not the window's own; 0 where the node's version,
	// and so the unit of its latency tables, could not be read.
	// +required
	CoordinatorWriteP99Micros int64 `json:"coordinatorWriteP99Micros"`
	// coordinatorReadP99Micros is the node's coordinator read p99, read as CoordinatorWriteP99Micros
	// is.
	// +required
	CoordinatorReadP99Micros int64 `json:"coordinatorReadP99Micros"`
	// coordinatorLatencyResolutionMicros is the resolution of the two figures above: 1000
	// on Cassandra 4.1 and 5.0, whose latency tables hold seconds to three decimals.
	// +optional
	CoordinatorLatencyResolutionMicros int64 `json:"coordinatorLatencyResolutionMicros,omitempty"`
	// cpuMillicores is the node's CPU use over the window (its process's user and system
	// time over the window's wall time). Read from the process where the node runs on the
	// reading writer's machine (local nodes); from the management API's metrics endpoint
	// (process_cpu_seconds_total) on cass-operator pods; absent elsewhere.
	// +optional
	CPUMillicores int64 `json:"cpuMillicores,omitempty"`
	// cpuCores is how many cores the node's process could run on (its CPU affinity), where
	// the process was read; 0 on cass-operator pods.
	// +optional
	CPUCores int32 `json:"cpuCores,omitempty"`
	// cpuLimitMillicores is the CPU the node could use: its process's affinity capped by its
	// cgroup's CPU quota (local nodes), or the CassandraDatacenter's spec.resources.limits.cpu
	// (cass-operator pods); 0 when neither is known, and the verdict then does not judge the
	// node's saturation.
	// +optional
	CPULimitMillicores int64 `json:"cpuLimitMillicores,omitempty"`
	// cpuThrottledPercent is the share of the scheduler periods of the node's cgroup CPU quota
	// in which the node used its quota up and was held until the next period (cpu.stat's
	// nr_throttled over nr_periods). Read where the node's process is on the reading writer's
	// machine and a cgroup on its path sets a quota; absent elsewhere.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	CPUThrottledPercent *int64 `json:"cpuThrottledPercent,omitempty"`
	// gc is the stop-the-world pauses of the node's JVM in the window; absent where no source
	// was readable (notAvailable then says why).
	// +optional
	GC *NodeGCResults `json:"gc,omitempty"`
	// notAvailable says, one sentence a figure, why the node's CPU or GC figure is absent:
	// where no source reached it, never a silent blank.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=256
	NotAvailable []string `json:"notAvailable,omitempty"`
	// logs holds what the node logged in the window; absent where the node does not feed
	// system_views.system_logs.
	// +optional
	Logs *NodeLogResults `json:"logs,omitempty"`
}

// GC sources: every pause from the JVM's own gc log, or only the pauses over
// gc_log_threshold (200 ms by default) that Cassandra's GCInspector logs.
const (
	GCSourceGCLog      = "gc.log"
	GCSourceSystemLogs = "system_logs"
	// GCSourceMetrics: the management API's metrics endpoint on a cass-operator pod
	// (jvm_gc_collection_seconds of the stop-the-world collectors): count and total, with
	// no longest pause (maxMillis 0).
	GCSourceMetrics = "metrics"
	// GCSourceHSPerfData: the JVM's performance counters (its hsperfdata file, which jstat
	// reads) for a node on its writer's machine that writes no gc log: every stop-the-world
	// collection, count and total, with no longest pause (maxMillis 0).
	GCSourceHSPerfData = "hsperfdata"
)

// NodeSSTableResults are the benchmark table's SSTables on a node over the window.
type NodeSSTableResults struct {
	// source is disk (the table's Data.db files in the node's data directories, for a node
	// on the reading writer's machine, without the outputs of a transaction not yet
	// committed) or metrics (the management API's live SSTable count of the table).
	// +kubebuilder:validation:Enum=disk;metrics
	// +required
	Source string `json:"source"`
	// before is the table's SSTables at the window's start (summed over nodes in the total).
	// +required
	Before int64 `json:"before"`
	// after is the table's SSTables at the window's end (summed over nodes in the total).
	// +required
	After int64 `json:"after"`
	// peak is the most SSTables at any sample of the window (summed over nodes in the total).
	// +required
	Peak int64 `json:"peak"`
	// pendingCompactions is the compaction strategy's estimate of the compactions the table
	// needs at the window's end (nodetool compactionstats' "pending tasks" for the table);
	// from the metrics endpoint only.
	// +optional
	PendingCompactions *int64 `json:"pendingCompactions,omitempty"`
	// pendingCompactionsPeak is the highest such estimate sampled in the window.
	// +optional
	PendingCompactionsPeak *int64 `json:"pendingCompactionsPeak,omitempty"`
}

// NodeGCResults are a node's garbage-collection pauses in the window.
type NodeGCResults struct {
	// source is gc.log (every pause, read from the JVM's log on the node's machine),
	// hsperfdata (the JVM's performance counters on the node's machine, as jstat reads them:
	// every stop-the-world collection, no longest), metrics (the management API's metrics
	// endpoint: every stop-the-world collection, no longest) or system_logs (only the pauses
	// over gc_log_threshold that GCInspector logs).
	// +kubebuilder:validation:Enum=gc.log;hsperfdata;system_logs;metrics
	// +required
	Source string `json:"source"`
	// pauses counted, their total and the longest, in milliseconds (rounded).
	// +required
	Pauses int64 `json:"pauses"`
	// totalMillis is the pauses' total, in milliseconds (rounded).
	// +required
	TotalMillis int64 `json:"totalMillis"`
	// maxMillis is the longest pause, in milliseconds (rounded).
	// +required
	MaxMillis int64 `json:"maxMillis"`
}

// NodeLogResults are what a node logged in the window.
type NodeLogResults struct {
	// errors logged, OutOfMemory errors among them.
	// +required
	Errors int64 `json:"errors"`
	// outOfMemory counts the OutOfMemory errors among Errors.
	// +required
	OutOfMemory int64 `json:"outOfMemory"`
	// worst quotes the most serious line (out of memory, error, longest GC pause, warning).
	// +optional
	// +kubebuilder:validation:MaxLength=160
	Worst string `json:"worst,omitempty"`
}

// BottleneckVerdict says what limited a run.
// +kubebuilder:validation:Enum=Writers;Cluster;Unclear;TargetMet
type BottleneckVerdict string

const (
	// BottleneckWriters: the writers were the limit (at their CPU limit, throttled, starved
	// of threads, or their requests in flight bounded throughput while the cluster had
	// headroom).
	BottleneckWriters BottleneckVerdict = "Writers"
	// BottleneckCluster: the cluster was the limit (queued or blocked stages, dropped
	// messages, timeouts, long GC pauses).
	BottleneckCluster BottleneckVerdict = "Cluster"
	// BottleneckUnclear: the evidence points both ways, or nowhere.
	BottleneckUnclear BottleneckVerdict = "Unclear"
	// BottleneckTargetMet: an open loop achieved its target rate, so nothing limited it; any
	// strain seen is named in the evidence.
	BottleneckTargetMet BottleneckVerdict = "TargetMet"
)

// Bottleneck is the verdict on who limited the run, with the evidence for it.
type Bottleneck struct {
	// verdict names who limited the run.
	// +required
	Verdict BottleneckVerdict `json:"verdict"`
	// evidence are the observations behind the verdict, in plain words.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=256
	Evidence []string `json:"evidence,omitempty"`
	// writerCPUPercent is the busiest writer's CPU use, in percent of its limit (of its
	// GOMAXPROCS cores when it has none); WriterThrottledPercent the most throttled writer's
	// share of throttled CPU periods; WriterSchedP99Micros the longest p99 wait of a runnable
	// goroutine for a thread, over writers.
	// +optional
	WriterCPUPercent int64 `json:"writerCPUPercent,omitempty"`
	// writerThrottledPercent is the most throttled writer's share of throttled CPU periods.
	// +optional
	WriterThrottledPercent int64 `json:"writerThrottledPercent,omitempty"`
	// writerSchedP99Micros is the longest p99 wait of a runnable goroutine for a thread, over writers.
	// +optional
	WriterSchedP99Micros int64 `json:"writerSchedP99Micros,omitempty"`
}
