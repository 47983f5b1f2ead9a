package server

import (
	"math"
	"sort"

	"github.com/cassbench/cassbench/internal/summary"
)

// requestStages are the stages whose queue means requests waited on this node: writes, reads,
// the native transport that takes client requests, and memtable flushing, which blocks
// writes once memtable space runs out.
var requestStages = []string{
	"MutationStage", "ReadStage", "Native-Transport-Requests", "CounterMutationStage",
	"ViewMutationStage", "MemtableFlushWriter",
}

// Peaks are the highest values seen over a node's samples.
type Peaks struct {
	Pending      int64
	PendingStage string
	Blocked      int64
	Backlog      int64
}

// Observe folds one sample into the peaks.
func (p *Peaks) Observe(s *Snapshot) {
	if s == nil {
		return
	}
	for _, name := range requestStages {
		if pool, ok := s.Pools[name]; ok && pool.Pending > p.Pending {
			p.Pending, p.PendingStage = pool.Pending, name
		}
	}
	for _, pool := range s.Pools {
		p.Blocked = max(p.Blocked, pool.Blocked)
	}
	p.Backlog = max(p.Backlog, backlog(s))
}

// backlog is compactions running plus compaction tasks queued.
func backlog(s *Snapshot) int64 {
	return s.Compactions + s.Pools["CompactionExecutor"].Pending
}

// Figures turns a node's snapshots at the window's start and end, its peaks and its log
// lines into the figures a writer reports.
func Figures(before, after *Snapshot, peaks Peaks, logs Logs) summary.ServerNode {
	peaks.Observe(before)
	peaks.Observe(after)
	delta := func(stage string) int64 {
		return max(after.Pools[stage].Completed-before.Pools[stage].Completed, 0)
	}
	var blocked int64
	for name, p := range after.Pools {
		blocked += max(p.BlockedAllTime-before.Pools[name].BlockedAllTime, 0)
	}
	n := summary.ServerNode{
		Node:                after.Node,
		Mutations:           delta("MutationStage"),
		Reads:               delta("ReadStage"),
		PendingPeak:         peaks.Pending,
		BlockedPeak:         peaks.Blocked,
		Blocked:             blocked,
		Dropped:             max(after.Expired-before.Expired, 0) + max(after.Overloaded-before.Overloaded, 0),
		Hints:               after.HintFiles,
		Compactions:         delta("CompactionExecutor"),
		BacklogBefore:       backlog(before),
		BacklogAfter:        backlog(after),
		BacklogPeak:         peaks.Backlog,
		CompactionBytesLeft: after.CompactionBytesLeft,
		Flushes:             delta("MemtableFlushWriter"),
		TableMiBBefore:      before.TableMiB,
		TableMiBAfter:       after.TableMiB,
		DiskMiB:             after.AllMiB,
		CoordWriteP99Micros: micros(after.CoordWrite.P99),
		CoordReadP99Micros:  micros(after.CoordRead.P99),
	}
	if peaks.Pending > 0 {
		n.PendingStage = peaks.PendingStage
	}
	if logs.Available {
		n.Logs = true
		n.GCPauses, n.GCTotalMillis, n.GCMaxMillis = logs.GCPauses, logs.GCTotalMillis, logs.GCMaxMillis
		n.LogErrors, n.OutOfMemory, n.Worst = logs.Errors, logs.OutOfMemory, logs.Worst
		n.Dropped += logs.Dropped
	}
	return n
}

func micros(ms float64) int64 {
	if math.IsNaN(ms) || ms <= 0 {
		return 0
	}
	return int64(math.Round(ms * 1000))
}

// severity orders nodes for listing: the ones with something to say first.
func severity(n summary.ServerNode) int64 {
	return n.OutOfMemory*1e12 + n.Dropped*1e6 + n.Blocked*1e5 + n.BlockedPeak*1e5 + n.PendingPeak*100 + n.GCMaxMillis + n.BacklogPeak
}

// Bounded builds a writer's Server section from its nodes' figures, the most telling nodes
// listed first, within summary.MaxServerBytes.
func Bounded(nodes []summary.ServerNode) *summary.Server {
	sorted := append([]summary.ServerNode(nil), nodes...)
	sort.SliceStable(sorted, func(i, j int) bool { return severity(sorted[i]) > severity(sorted[j]) })
	s := &summary.Server{Nodes: sorted}
	s.Bound()
	return s
}
