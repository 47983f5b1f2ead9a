package verdict

import (
	"fmt"
	"sort"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
)

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

// MaxAnomalies bounds the sentences (status.results.server.anomalies); per-node ones stop earlier so totals always fit.
const MaxAnomalies = 20

// Anomalies says in plain words what went wrong on the server, worst first.
func Anomalies(r *cbv1.ServerResults) []string {
	var out []string
	add := func(format string, a ...any) {
		if len(out) < MaxAnomalies {
			out = append(out, fmt.Sprintf(format, a...))
		}
	}
	for _, n := range r.Nodes {
		if len(out) >= MaxAnomalies-4 {
			break
		}
		if n.Logs != nil && n.Logs.OutOfMemory > 0 {
			add("node %s ran out of memory: %q", NodeName(n), n.Logs.Worst)
		}
		if n.Dropped > 0 {
			add("node %s dropped %s messages", NodeName(n), numfmt.Count(n.Dropped))
		}
		if n.Blocked > 0 || n.BlockedPeak > 0 {
			add("node %s blocked %s requests (up to %s at once)", NodeName(n), numfmt.Count(max(n.Blocked, n.BlockedPeak)), numfmt.Count(n.BlockedPeak))
		}
		if n.PendingPeak >= pendingWorthSaying {
			add("node %s queued up to %s tasks in %s", NodeName(n), numfmt.Count(n.PendingPeak), n.PendingStage)
		}
		if n.Hints > 0 {
			add("node %s holds %s hint files for other nodes", NodeName(n), numfmt.Count(n.Hints))
		}
	}
	for _, n := range r.Nodes {
		if ss := n.SSTables; ss != nil && ss.Peak-ss.Before >= sstablesWorthSaying && ss.Peak >= 2*max(ss.Before, 1) {
			add("node %s's SSTables of the table grew from %s to %s (%s at the end): compaction fell behind the flushes", NodeName(n),
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
				worst = " on node " + NodeName(n)
				break
			}
		}
		add("GC paused %s in total, worst %s%s", numfmt.Millis(t.GC.TotalMillis), numfmt.Millis(t.GC.MaxMillis), worst)
	}
	return out
}

// NodeName is how a verdict names a node: its address, and its Cassandra datacenter where the
// writers learnt it ("10.0.0.7 (dc2)"), so that a run across datacenters says which one a
// sign comes from.
func NodeName(n cbv1.NodeServerResults) string {
	if n.Datacenter == "" {
		return n.Node
	}
	return n.Node + " (" + n.Datacenter + ")"
}

// where names the listed nodes (with their datacenter, where the run spans several) on which
// a sign summed over the nodes was seen, most first, up to three: " (most on node 10.1.0.1
// (dc2), then 10.0.0.1 (dc1))". Empty when no listed node shows it, as when the nodes were
// summed and not listed.
func where(s *cbv1.ServerResults, of func(cbv1.NodeServerResults) int64) string {
	var seen []cbv1.NodeServerResults
	for _, n := range s.Nodes {
		if of(n) > 0 {
			seen = append(seen, n)
		}
	}
	if len(seen) == 0 {
		return ""
	}
	sort.SliceStable(seen, func(i, j int) bool { return of(seen[i]) > of(seen[j]) })
	names := make([]string, 0, 3)
	for _, n := range seen[:min(len(seen), 3)] {
		names = append(names, NodeName(n))
	}
	if len(names) == 1 {
		return " (on node " + names[0] + ")"
	}
	return " (most on node " + names[0] + ", then " + strings.Join(names[1:], ", ") + ")"
}
