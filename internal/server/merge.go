package server

import (
	"fmt"
	"sort"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
	"github.com/cassbench/cassbench/internal/summary"
)

// Merge combines what the writers saw of their nodes into status.results.server. It returns
// nil when no writer read any node.
func Merge(summaries []*summary.Summary) *cbv1.ServerResults {
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
		if a, b := severity(nodes[i]), severity(nodes[j]); a != b {
			return a > b
		}
		return nodes[i].Node < nodes[j].Node
	})
	total.Node, total.Count, total.Worst = "", 0, ""
	out := &cbv1.ServerResults{NodesRead: read, Total: nodeResult(total), Errors: errs}
	for _, n := range nodes {
		out.Nodes = append(out.Nodes, nodeResult(n))
	}
	out.Anomalies = Anomalies(out)
	return out
}

// SetCPULimit gives the nodes whose CPU was read without knowing what they could use (from a
// metrics endpoint) the limit the controller knows, so the verdict can judge their saturation.
func SetCPULimit(s *cbv1.ServerResults, millicores int64) {
	if s == nil || millicores <= 0 {
		return
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.CPUMillicores > 0 && n.CPULimitMillicores == 0 && n.CPUCores == 0 {
			n.CPULimitMillicores = millicores
		}
	}
}

func nodeResult(n summary.ServerNode) cbv1.NodeServerResults {
	r := cbv1.NodeServerResults{
		Node: n.Node, Mutations: n.Mutations, Reads: n.Reads,
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
	return r
}

// sstableSources names a summary's SSTable source in the API.
var sstableSources = map[string]string{summary.SSTablesFromDisk: "disk", summary.SSTablesFromMetrics: "metrics"}

// gcSources names a summary's GC source in the API.
var gcSources = map[string]string{summary.GCFromLog: cbv1.GCSourceGCLog, summary.GCFromSystemLogs: cbv1.GCSourceSystemLogs,
	summary.GCFromMetrics: cbv1.GCSourceMetrics}

// pendingWorthSaying is the queue depth in a request stage worth a sentence: a stage's pool
// takes 32 tasks at once by default, so tasks waiting at all mean the node was saturated,
// and a handful is noise between samples.
const pendingWorthSaying = 8

// gcPauseWorthSaying is the longest pause worth a sentence: every young collection of a busy
// node pauses a few milliseconds, which the gc log counts and nobody needs told.
const gcPauseWorthSaying = 100

// sstablesWorthSaying is the growth in a table's SSTables worth a sentence: a few flushes
// waiting for a size-tiered bucket of four are normal.
const sstablesWorthSaying = 8

// maxAnomalies bounds the sentences; per-node ones stop earlier so totals always fit.
const maxAnomalies = 20

// Anomalies says in plain words what went wrong on the server, worst first.
func Anomalies(r *cbv1.ServerResults) []string {
	var out []string
	add := func(format string, a ...any) {
		if len(out) < maxAnomalies {
			out = append(out, fmt.Sprintf(format, a...))
		}
	}
	for _, n := range r.Nodes {
		if len(out) >= maxAnomalies-4 {
			break
		}
		if n.Logs != nil && n.Logs.OutOfMemory > 0 {
			add("node %s ran out of memory: %q", n.Node, n.Logs.Worst)
		}
		if n.Dropped > 0 {
			add("node %s dropped %s messages", n.Node, numfmt.Count(n.Dropped))
		}
		if n.Blocked > 0 || n.BlockedPeak > 0 {
			add("node %s blocked %s requests (up to %s at once)", n.Node, numfmt.Count(max(n.Blocked, n.BlockedPeak)), numfmt.Count(n.BlockedPeak))
		}
		if n.PendingPeak >= pendingWorthSaying {
			add("node %s queued up to %s tasks in %s", n.Node, numfmt.Count(n.PendingPeak), n.PendingStage)
		}
		if n.Hints > 0 {
			add("node %s holds %s hint files for other nodes", n.Node, numfmt.Count(n.Hints))
		}
	}
	for _, n := range r.Nodes {
		if ss := n.SSTables; ss != nil && ss.Peak-ss.Before >= sstablesWorthSaying && ss.Peak >= 2*max(ss.Before, 1) {
			add("node %s's SSTables of the table grew from %s to %s (%s at the end): compaction fell behind the flushes", n.Node,
				numfmt.Count(ss.Before), numfmt.Count(ss.Peak), numfmt.Count(ss.After))
		}
	}
	t := r.Total
	if grew := t.CompactionBacklogAfter - t.CompactionBacklogBefore; grew > 0 && t.CompactionBacklogAfter >= 2*max(t.CompactionBacklogBefore, 1) {
		add("compaction backlog grew from %s to %s tasks", numfmt.Count(t.CompactionBacklogBefore), numfmt.Count(t.CompactionBacklogAfter))
	}
	if t.GC != nil && t.GC.Pauses > 0 && t.GC.MaxMillis >= gcPauseWorthSaying {
		worst := ""
		for _, n := range r.Nodes {
			if n.GC != nil && n.GC.MaxMillis == t.GC.MaxMillis {
				worst = " on node " + n.Node
				break
			}
		}
		add("GC paused %s in total, worst %s%s", numfmt.Millis(t.GC.TotalMillis), numfmt.Millis(t.GC.MaxMillis), worst)
	}
	return out
}
