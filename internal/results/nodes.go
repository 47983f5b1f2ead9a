package results

import (
	"fmt"
	"sort"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/verdict"
)

// MergeServer combines what the writers saw of their nodes into status.results.server. It returns
// nil when no writer read any node.
func MergeServer(summaries []*summary.Summary) *cbv1.ServerResults {
	var total summary.ServerNode
	var nodes []summary.ServerNode
	var errs []string
	read := int32(0)
	seen := false
	for _, s := range summaries {
		if s == nil || s.Server == nil {
			continue
		}
		seen = true
		for _, n := range s.Server.Nodes {
			nodes = append(nodes, n)
			total.Add(n)
			read++
		}
		if r := s.Server.Rest; r != nil {
			total.Add(*r)
			read += max(r.Count, 1)
		}
		if s.Server.Error != "" && len(errs) < 8 {
			errs = append(errs, fmt.Sprintf("writer %d: %s", s.Index, s.Server.Error))
		}
	}
	if !seen {
		return nil
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		if a, b := nodes[i].Severity(), nodes[j].Severity(); a != b {
			return a > b
		}
		return nodes[i].Node < nodes[j].Node
	})
	total.Node, total.Count, total.Worst = "", 0, ""
	if !severalDatacenters(nodes) {
		for i := range nodes {
			nodes[i].Datacenter = ""
		}
	}
	out := &cbv1.ServerResults{NodesRead: read, Total: nodeResult(total), Errors: errs}
	for _, n := range nodes {
		out.Nodes = append(out.Nodes, nodeResult(n))
	}
	out.Anomalies = verdict.Anomalies(out)
	return out
}

// severalDatacenters tells whether the nodes span more than one datacenter: only then does
// status name each node's, and the verdict with it.
func severalDatacenters(nodes []summary.ServerNode) bool {
	for _, n := range nodes {
		if n.Datacenter != nodes[0].Datacenter {
			return true
		}
	}
	return false
}

// maxDatacenterName is the longest datacenter name status keeps (the field's MaxLength):
// Cassandra bounds none, a CassandraDatacenter's name is a Kubernetes name.
const maxDatacenterName = 64

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func nodeResult(n summary.ServerNode) cbv1.NodeServerResults {
	r := cbv1.NodeServerResults{
		Node: n.Node, Datacenter: truncate(n.Datacenter, maxDatacenterName), Mutations: n.Mutations, Reads: n.Reads,
		PendingPeak: n.PendingPeak, PendingStage: n.PendingStage,
		BlockedPeak: n.BlockedPeak, Blocked: n.Blocked, Dropped: n.Dropped, Hints: n.Hints,
		Compactions: n.Compactions, CompactionBacklogBefore: n.BacklogBefore,
		CompactionBacklogAfter: n.BacklogAfter, CompactionBacklogPeak: n.BacklogPeak,
		CompactionBytesLeft: n.CompactionBytesLeft, Flushes: n.Flushes,
		TableMiBBefore: n.TableMiBBefore, TableMiBAfter: n.TableMiBAfter, DiskMiB: n.DiskMiB,
		CoordinatorWriteP99Micros: n.CoordWriteP99Micros, CoordinatorReadP99Micros: n.CoordReadP99Micros,
		CoordinatorLatencyResolutionMicros: n.CoordResolution,
	}
	r.CPUMillicores, r.CPUCores, r.CPULimitMillicores = n.CPUMillicores, n.CPUCores, n.CPULimitMillicores
	r.CPUThrottledPercent = n.CPUThrottledPercent
	if source, ok := sstableSources[n.SSTableSource]; ok {
		r.SSTables = &cbv1.NodeSSTableResults{Source: source, Before: n.SSTablesBefore, After: n.SSTablesAfter, Peak: n.SSTablesPeak,
			PendingCompactions: n.PendingCompactions, PendingCompactionsPeak: n.PendingCompactionsPeak}
	}
	if source, ok := gcSources[n.GCSource]; ok {
		r.GC = &cbv1.NodeGCResults{Source: source, Pauses: n.GCPauses, TotalMillis: n.GCTotalMillis, MaxMillis: n.GCMaxMillis}
	}
	if n.Logs {
		r.Logs = &cbv1.NodeLogResults{Errors: n.LogErrors, OutOfMemory: n.OutOfMemory, Worst: n.Worst}
	}
	for _, code := range n.Missing {
		if why, ok := missingReasons[code]; ok && len(r.NotAvailable) < 4 {
			r.NotAvailable = append(r.NotAvailable, why)
		}
	}
	return r
}

// missingReasons words a summary's Missing codes for status.
var missingReasons = map[string]string{
	summary.MissingCPURemote: "CPU: the node is not on its writer's machine and its management API's metrics endpoint " +
		"(port 9000, /metrics) did not answer",
	summary.MissingCPUMetrics: "CPU: the node's metrics endpoint served no process_cpu_seconds_total",
	summary.MissingCPUProc:    "CPU: the node's process was found on its writer's machine but its /proc/PID/stat could not be read",
	summary.MissingGCRemote: "GC: the node is not on its writer's machine, its management API's metrics endpoint did not answer, " +
		"and it does not feed system_views.system_logs",
	summary.MissingGCMetrics: "GC: the node's metrics endpoint served no jvm_gc_collection_seconds, and it does not feed " +
		"system_views.system_logs",
	summary.MissingGCPerfOff: "GC: the node's JVM writes no -Xlog:gc file and keeps no hsperfdata counters " +
		"(-XX:+PerfDisableSharedMem or -XX:-UsePerfData), and it does not feed system_views.system_logs",
	summary.MissingGCPerfUnreadable: "GC: the node's JVM writes no -Xlog:gc file and its hsperfdata counters could not be read " +
		"by its writer (another user's JVM, or another version's format)",
}

// sstableSources names a summary's SSTable source in the API.
var sstableSources = map[string]string{summary.SSTablesFromDisk: "disk", summary.SSTablesFromMetrics: "metrics"}

// gcSources names a summary's GC source in the API.
var gcSources = map[string]string{summary.GCFromLog: cbv1.GCSourceGCLog, summary.GCFromSystemLogs: cbv1.GCSourceSystemLogs,
	summary.GCFromMetrics: cbv1.GCSourceMetrics, summary.GCFromPerfData: cbv1.GCSourceHSPerfData}
