package nodewatch

import (
	"sort"
	"time"

	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/summary"
)

// requestStages are the stages whose queue means requests waited on this node: writes, reads,
// the native transport that takes client requests, and memtable flushing, which blocks
// writes once memtable space runs out.
var requestStages = []string{
	"MutationStage", "ReadStage", "Native-Transport-Requests", "CounterMutationStage",
	"ViewMutationStage", "MemtableFlushWriter",
}

// sepPools are the stages Cassandra runs on its shared executor pool (SEPExecutor): their
// blocked counters never move (a full SEP stage queues, it does not block), so blocking is
// read from the other pools only, and the pending peak, the Native-Transport queue and the
// clients' Overloaded errors stand for saturation of these.
var sepPools = map[string]bool{
	"MutationStage": true, "CounterMutationStage": true, "ViewMutationStage": true, "ReadStage": true,
	"RequestResponseStage": true, "Native-Transport-Requests": true, "Native-Transport-Auth-Requests": true,
}

// Peaks are the highest values seen over a node's samples.
type Peaks struct {
	Pending      int64
	PendingStage string
	Blocked      int64
	Backlog      int64
	// SSTables and PendingCompactions are the highest read, -1 when never read.
	SSTables, PendingCompactions int64
}

// NewPeaks is peaks before any sample.
func NewPeaks() *Peaks { return &Peaks{SSTables: -1, PendingCompactions: -1} }

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
	for name, pool := range s.Pools {
		if !sepPools[name] {
			p.Blocked = max(p.Blocked, pool.Blocked)
		}
	}
	p.Backlog = max(p.Backlog, backlog(s))
	p.SSTables = max(p.SSTables, s.SSTables)
	p.PendingCompactions = max(p.PendingCompactions, s.PendingCompactions)
}

// backlog is compactions running plus compaction tasks queued.
func backlog(s *Snapshot) int64 {
	return s.Compactions + s.Pools["CompactionExecutor"].Pending
}

// Local is what a node's own process showed over the window, where the node runs on the
// reading writer's machine.
type Local struct {
	// CPU the process used over Wall, with Cores cores its affinity allows and
	// LimitMillicores the CPU it may use (the affinity capped by its cgroup's quota; 0: not
	// known).
	CPU, Wall       time.Duration
	Cores           int
	LimitMillicores int64
	// ThrottledPercent is the share of its quota's scheduler periods in which the node was
	// throttled, where Throttling (a quota was set and its counters read).
	ThrottledPercent int64
	Throttling       bool
	// GC is what its gc log (or GCSource) says of the window; nil when it has none.
	GC *nodeproc.GCPauses
	// GCSource is where GC comes from: summary.GCFromLog when empty.
	GCSource string
	// Missing says why CPU or GC could not be read (summary.Missing* codes).
	Missing []string
}

// gcCodes are the Missing codes of the GC figure.
var gcCodes = map[string]bool{summary.MissingGCRemote: true, summary.MissingGCMetrics: true,
	summary.MissingGCPerfOff: true, summary.MissingGCPerfUnreadable: true}

// remoteUnread is what Figures is given for a node neither on this machine nor serving
// metrics: nothing, and why.
var remoteUnread = &Local{Missing: []string{summary.MissingCPURemote, summary.MissingGCRemote}}

// Figures turns a node's snapshots at the window's start and end, its peaks, its log lines
// and, for a node on this machine, its process's figures (nil elsewhere) into the figures a
// writer reports.
func Figures(before, after *Snapshot, peaks Peaks, logs Logs, local *Local) summary.ServerNode {
	peaks.Observe(before)
	peaks.Observe(after)
	delta := func(stage string) int64 {
		return max(after.Pools[stage].Completed-before.Pools[stage].Completed, 0)
	}
	var blocked int64
	for name, p := range after.Pools {
		if !sepPools[name] {
			blocked += max(p.BlockedAllTime-before.Pools[name].BlockedAllTime, 0)
		}
	}
	unit, resolution, _ := LatencyUnit(after.Version)
	n := summary.ServerNode{
		Node: after.Node, Datacenter: after.Datacenter,
		// The table's local write and read timers count every write and read this replica
		// applied to the benchmark table, including those a stage ran inline, which never
		// reach the stage's completed count.
		Mutations:           max(after.LocalWrite.Count-before.LocalWrite.Count, 0),
		Reads:               max(after.LocalRead.Count-before.LocalRead.Count, 0),
		PendingPeak:         peaks.Pending,
		BlockedPeak:         peaks.Blocked,
		Blocked:             blocked,
		Dropped:             max(after.Expired-before.Expired, 0) + max(after.Overloaded-before.Overloaded, 0),
		Hints:               after.HintFiles,
		Compactions:         compactedSince(before, after),
		BacklogBefore:       backlog(before),
		BacklogAfter:        backlog(after),
		BacklogPeak:         peaks.Backlog,
		CompactionBytesLeft: after.CompactionBytesLeft,
		Flushes:             delta("MemtableFlushWriter"),
		TableMiBBefore:      before.TableMiB,
		TableMiBAfter:       after.TableMiB,
		DiskMiB:             after.AllMiB,
		CoordWriteP99Micros: toMicros(after.CoordWrite.P99, unit),
		CoordReadP99Micros:  toMicros(after.CoordRead.P99, unit),
		CoordResolution:     resolution,
	}
	if peaks.Pending > 0 {
		n.PendingStage = peaks.PendingStage
	}
	if after.SSTableSource != "" && before.SSTables >= 0 && after.SSTables >= 0 && before.SSTableSource == after.SSTableSource {
		n.SSTableSource = after.SSTableSource
		n.SSTablesBefore, n.SSTablesAfter, n.SSTablesPeak = before.SSTables, after.SSTables, peaks.SSTables
		if after.PendingCompactions >= 0 {
			end, peak := after.PendingCompactions, peaks.PendingCompactions
			n.PendingCompactions, n.PendingCompactionsPeak = &end, &peak
		}
	}
	if local == nil {
		local = remoteUnread
	}
	localCPU(&n, local)
	for _, code := range local.Missing {
		// A node whose GC the system_logs give is missing nothing of it.
		if !logs.Available || !gcCodes[code] {
			n.Missing = append(n.Missing, code)
		}
	}
	switch {
	case local.GC != nil:
		n.GCSource = summary.GCFromLog
		if local.GCSource != "" {
			n.GCSource = local.GCSource
		}
		n.GCPauses = local.GC.Count
		n.GCTotalMillis = (local.GC.TotalMicros + 500) / 1000
		n.GCMaxMillis = (local.GC.MaxMicros + 500) / 1000
	case logs.Available:
		n.GCSource = summary.GCFromSystemLogs
		n.GCPauses, n.GCTotalMillis, n.GCMaxMillis = logs.GCPauses, logs.GCTotalMillis, logs.GCMaxMillis
	}
	if logs.Available {
		n.Logs = true
		n.LogErrors, n.OutOfMemory, n.Worst = logs.Errors, logs.OutOfMemory, logs.Worst
		// Cross-node drops are in the internode tables already; the log adds the ones the
		// node dropped of its own requests, which those tables never see.
		n.Dropped += logs.DroppedInternal
	}
	return n
}

// Bounded builds a writer's Server section from its nodes' figures, the most telling nodes
// listed first, within summary.MaxServerBytes.
func Bounded(nodes []summary.ServerNode) *summary.Server {
	sorted := append([]summary.ServerNode(nil), nodes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Severity() > sorted[j].Severity() })
	s := &summary.Server{Nodes: sorted}
	s.Bound()
	return s
}

// localCPU sets a node's CPU figures from its process's, where they were read.
func localCPU(n *summary.ServerNode, local *Local) {
	if local.Wall < time.Millisecond || local.CPU <= 0 {
		return
	}
	n.CPUMillicores = local.CPU.Microseconds() / local.Wall.Milliseconds()
	n.CPUCores = int32(local.Cores)
	n.CPULimitMillicores = local.LimitMillicores
	if local.Throttling {
		pct := local.ThrottledPercent
		n.CPUThrottledPercent = &pct
	}
}
