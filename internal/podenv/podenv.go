// Package podenv is the contract between the controller, which builds setup and writer pods,
// and the cassbench command that runs inside them: the environment variables a pod is given.
// Flags of the same meaning override them, so `cassbench run` and a laptop can pass flags.
package podenv

const (
	// Spec is the BenchmarkRun spec as JSON.
	Spec = "CASSBENCH_SPEC"
	// RunID identifies the run; writers of one run meet at a start barrier keyed by it.
	RunID = "CASSBENCH_RUN_ID"
	// Hosts is a comma-separated list of contact points.
	Hosts = "CASSBENCH_HOSTS"
	// Port is the CQL native protocol port.
	Port = "CASSBENCH_PORT"
	// Username and Password authenticate to Cassandra; they come from a secret reference.
	Username = "CASSBENCH_USERNAME"
	Password = "CASSBENCH_PASSWORD"
	// LocalDatacenter is the Cassandra datacenter name: routing prefers it, and
	// NetworkTopologyStrategy replicates to it.
	LocalDatacenter = "CASSBENCH_DATACENTER"
	// Writers is the number of writers in the run.
	Writers = "CASSBENCH_WRITERS"
	// ExpectNodes is the number of nodes setup waits to see up.
	ExpectNodes = "CASSBENCH_EXPECT_NODES"
	// AllowDropKeyspaces is the datacenter's allow-drop-keyspaces annotation: the keyspaces
	// setup may drop although cassbench did not create them.
	AllowDropKeyspaces = "CASSBENCH_ALLOW_DROP_KEYSPACES"
	// ClearSnapshots says how setup clears the snapshots a recreating drop leaves:
	// management-api, nodetool or none.
	ClearSnapshots = "CASSBENCH_CLEAR_SNAPSHOTS"
	// Placement is, for a run across several datacenters, where each datacenter's writers
	// connect: comma-separated name=datacenter@host:port, name being the CassandraDatacenter's
	// (as spec.datacenters names it) and datacenter the Cassandra datacenter. A writer finds
	// its datacenter from its index and spec.datacenters' writers, in the spec's order.
	Placement = "CASSBENCH_PLACEMENT"
	// CompletionIndex is set by Kubernetes on pods of an Indexed Job: the writer's index.
	CompletionIndex = "JOB_COMPLETION_INDEX"
)

// Values of ClearSnapshots.
const (
	// ClearSnapshotsManagementAPI calls the k8ssandra management API that cass-operator runs
	// in every Cassandra pod.
	ClearSnapshotsManagementAPI = "management-api"
	// ClearSnapshotsNodetool runs nodetool for each node.
	ClearSnapshotsNodetool = "nodetool"
	// ClearSnapshotsNone clears nothing: setup says what the nodes keep and how to clear it.
	ClearSnapshotsNone = "none"
)

// TerminationLog is where a pod writes its result summary.
const TerminationLog = "/dev/termination-log"

// MetricsPort is where writers serve Prometheus metrics.
const MetricsPort = 8080

// CSVDir is where the ConfigMap of schema.csv is mounted in writer pods; the file is its key.
const CSVDir = "/etc/cassbench/csv"
