package v1alpha1

// ServerResults are what the Cassandra nodes did during the measured window, read from their
// CQL virtual tables by the writers (each node by one writer) at the window's start and end
// and sampled in between. docs/server.md says where each figure comes from.
type ServerResults struct {
	// NodesRead is how many nodes were read at both ends of the window.
	NodesRead int32 `json:"nodesRead"`
	// Nodes lists each node's figures, the most telling first. A writer lists at most what
	// fits its summary; nodes it could not list count only in Total (NodesRead minus the
	// length of this list).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	Nodes []NodeServerResults `json:"nodes,omitempty"`
	// Total sums every node read: counts add, peaks and latencies are the highest of any node.
	Total NodeServerResults `json:"total"`
	// Anomalies say in plain words what an operator would look at first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=256
	Anomalies []string `json:"anomalies,omitempty"`
	// Errors say which nodes could not be read, and why.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=256
	Errors []string `json:"errors,omitempty"`
}

// NodeServerResults are one node's figures over the window (or all nodes', in Total).
type NodeServerResults struct {
	// Node is the node's address; empty in Total.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Node string `json:"node,omitempty"`
	// Mutations and Reads the node's MutationStage and ReadStage completed.
	Mutations int64 `json:"mutations"`
	Reads     int64 `json:"reads"`
	// PendingPeak is the most tasks seen waiting in one request stage, PendingStage.
	PendingPeak int64 `json:"pendingPeak"`
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PendingStage string `json:"pendingStage,omitempty"`
	// BlockedPeak is the most tasks seen blocked at once; Blocked counts tasks newly blocked.
	BlockedPeak int64 `json:"blockedPeak"`
	Blocked     int64 `json:"blocked"`
	// Dropped messages: internode messages expired or refused for overload, plus drops the
	// node logged.
	Dropped int64 `json:"dropped"`
	// Hints are hint files waiting at the window's end.
	Hints int64 `json:"hints"`
	// Compactions finished in the window; the backlog (compactions running or queued) at its
	// start, end and highest sample; the bytes running compactions still had to read.
	Compactions             int64 `json:"compactions"`
	CompactionBacklogBefore int64 `json:"compactionBacklogBefore"`
	CompactionBacklogAfter  int64 `json:"compactionBacklogAfter"`
	CompactionBacklogPeak   int64 `json:"compactionBacklogPeak"`
	CompactionBytesLeft     int64 `json:"compactionBytesLeft"`
	// Flushes of memtables to SSTables.
	Flushes int64 `json:"flushes"`
	// TableMiBBefore and TableMiBAfter are the benchmark table's live disk space; DiskMiB all
	// tables' at the end (whole MiB).
	TableMiBBefore int64 `json:"tableMiBBefore"`
	TableMiBAfter  int64 `json:"tableMiBAfter"`
	DiskMiB        int64 `json:"diskMiB"`
	// CoordinatorWriteP99Micros and CoordinatorReadP99Micros are the node's recent p99 as
	// coordinator for the table at the window's end.
	CoordinatorWriteP99Micros int64 `json:"coordinatorWriteP99Micros"`
	CoordinatorReadP99Micros  int64 `json:"coordinatorReadP99Micros"`
	// Logs holds what the node logged in the window; absent where the node does not feed
	// system_views.system_logs.
	// +optional
	Logs *NodeLogResults `json:"logs,omitempty"`
}

// NodeLogResults are what a node logged in the window.
type NodeLogResults struct {
	// GCPauses the GC inspector reported (above gc_log_threshold), their total and longest.
	GCPauses      int64 `json:"gcPauses"`
	GCTotalMillis int64 `json:"gcTotalMillis"`
	GCMaxMillis   int64 `json:"gcMaxMillis"`
	// Errors logged, OutOfMemory errors among them.
	Errors      int64 `json:"errors"`
	OutOfMemory int64 `json:"outOfMemory"`
	// Worst quotes the most serious line (out of memory, error, longest GC pause, warning).
	// +optional
	// +kubebuilder:validation:MaxLength=160
	Worst string `json:"worst,omitempty"`
}

// BottleneckVerdict says what limited a run.
// +kubebuilder:validation:Enum=Writers;Cluster;Unclear
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
)

// Bottleneck is the verdict on who limited the run, with the evidence for it.
type Bottleneck struct {
	Verdict BottleneckVerdict `json:"verdict"`
	// Evidence are the observations behind the verdict, in plain words.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=256
	Evidence []string `json:"evidence,omitempty"`
	// WriterCPUPercent is the busiest writer's CPU use, in percent of its limit (of its
	// GOMAXPROCS cores when it has none); WriterThrottledPercent the most throttled writer's
	// share of throttled CPU periods; WriterSchedP99Micros the longest p99 wait of a runnable
	// goroutine for a thread, over writers.
	// +optional
	WriterCPUPercent int64 `json:"writerCPUPercent,omitempty"`
	// +optional
	WriterThrottledPercent int64 `json:"writerThrottledPercent,omitempty"`
	// +optional
	WriterSchedP99Micros int64 `json:"writerSchedP99Micros,omitempty"`
}
