package summary

import "encoding/json"

// Server is what one writer saw of the Cassandra nodes it watched during its window (writer i
// of N watches the nodes whose position, sorted by address, is i modulo N). It is bounded to
// MaxServerBytes: nodes beyond what fits are summed into Rest, so totals stay exact.
type Server struct {
	Nodes []ServerNode `json:"n,omitempty"`
	// Rest sums the nodes not listed; its Node is empty and Count says how many.
	Rest *ServerNode `json:"r,omitempty"`
	// Error says why the nodes could not be read; the run goes on without these figures.
	Error string `json:"err,omitempty"`
	// Timeline is what the nodes did sample by sample over the window.
	Timeline *ServerTimeline `json:"tl,omitempty"`
}

// Sources of a node's GC figures: the JVM's gc log (every pause), or the GCInspector lines
// of system_views.system_logs (pauses over gc_log_threshold only).
const (
	GCFromLog        = "g"
	GCFromSystemLogs = "s"
	// GCFromMetrics: the management API's metrics endpoint (count and total, no longest).
	GCFromMetrics = "m"
	// GCFromPerfData: the JVM's hsperfdata counters, for a node on the writer's machine whose
	// JVM writes no gc log file (count and total, no longest).
	GCFromPerfData = "p"
)

// Why a node's CPU or GC figure is not available, as short codes in a writer's summary
// (results words them for status). A figure with no code and no value was not asked for.
const (
	// MissingCPURemote and MissingGCRemote: the node is not on the writer's machine and its
	// management API's metrics endpoint did not answer (GC: nor was system_logs fed).
	MissingCPURemote = "cr"
	MissingGCRemote  = "gr"
	// MissingCPUMetrics and MissingGCMetrics: the endpoint answered without the family.
	MissingCPUMetrics = "cm"
	MissingGCMetrics  = "gm"
	// MissingCPUProc: the node's process was found but its /proc/PID/stat was unreadable.
	MissingCPUProc = "cp"
	// MissingGCPerfOff: the node's JVM writes no gc log file and keeps no hsperfdata file
	// (-XX:+PerfDisableSharedMem or -XX:-UsePerfData).
	MissingGCPerfOff = "go"
	// MissingGCPerfUnreadable: its hsperfdata file exists but could not be read (another
	// user's, or a JVM of another version).
	MissingGCPerfUnreadable = "gu"
)

// Sources of a node's SSTable count: its table directory on the writer's machine, or the
// management API's metrics endpoint.
const (
	SSTablesFromDisk    = "d"
	SSTablesFromMetrics = "m"
)

// MaxServerBytes bounds the encoded Server within a writer's summary.
const MaxServerBytes = 1024

// ServerNode is one node's figures over the window (or the sum of several, in Rest). Counts
// are differences between the snapshots at the window's start and end; peaks are the highest
// seen at any sample.
type ServerNode struct {
	Node string `json:"a,omitempty"`
	// Datacenter is the node's Cassandra datacenter (empty where not known).
	Datacenter string `json:"dc,omitempty"`
	Count      int32  `json:"k,omitempty"`
	// Mutations and Reads this replica applied to the benchmark table (its local write and
	// read timers' counts).
	Mutations int64 `json:"m,omitempty"`
	Reads     int64 `json:"rd,omitempty"`
	// PendingPeak is the most tasks seen waiting in one request stage (PendingStage).
	PendingPeak  int64  `json:"pp,omitempty"`
	PendingStage string `json:"ps,omitempty"`
	// BlockedPeak is the most tasks seen blocked at once; Blocked counts tasks newly blocked
	// (blocked_tasks_all_time) in any stage, chiefly Native-Transport-Requests.
	BlockedPeak int64 `json:"bp,omitempty"`
	Blocked     int64 `json:"bl,omitempty"`
	// Dropped internode messages (expired, refused for overload) plus drops the node logged.
	Dropped int64 `json:"dr,omitempty"`
	// Hints are hint files waiting at the window's end.
	Hints int64 `json:"h,omitempty"`
	// Compactions finished; Backlog* are compactions running or queued at start, at end, and
	// at the highest sample; CompactionBytesLeft is what running ones still had to read.
	Compactions         int64 `json:"cd,omitempty"`
	BacklogBefore       int64 `json:"c0,omitempty"`
	BacklogAfter        int64 `json:"c1,omitempty"`
	BacklogPeak         int64 `json:"cp,omitempty"`
	CompactionBytesLeft int64 `json:"cb,omitempty"`
	// SSTables of the benchmark table at start, end and the highest sample, from
	// SSTableSource (SSTablesFromDisk, SSTablesFromMetrics; empty: not read), and the
	// compaction strategy's estimate of its pending compactions at the end and highest
	// (from the metrics endpoint only; nil elsewhere).
	SSTableSource          string `json:"ss,omitempty"`
	SSTablesBefore         int64  `json:"s0,omitempty"`
	SSTablesAfter          int64  `json:"s1,omitempty"`
	SSTablesPeak           int64  `json:"sp,omitempty"`
	PendingCompactions     *int64 `json:"pc1,omitempty"`
	PendingCompactionsPeak *int64 `json:"pc,omitempty"`
	// Flushes of memtables (MemtableFlushWriter tasks).
	Flushes int64 `json:"f,omitempty"`
	// TableMiB* is the benchmark table's live disk space at start and end; DiskMiB all tables'.
	TableMiBBefore int64 `json:"t0,omitempty"`
	TableMiBAfter  int64 `json:"t1,omitempty"`
	DiskMiB        int64 `json:"d,omitempty"`
	// CoordWrite/ReadP99Micros is the node's p99 as coordinator for the table at the end, an
	// exponentially decaying figure of the last minutes, to CoordResolution microseconds (0:
	// the node's version, and so the table's unit, was unknown).
	CoordWriteP99Micros int64 `json:"cw,omitempty"`
	CoordReadP99Micros  int64 `json:"cr,omitempty"`
	CoordResolution     int64 `json:"cu,omitempty"`
	// CPUMillicores is the node's CPU over the window, of CPUCores cores (0: not read);
	// CPULimitMillicores is what it could use (its affinity capped by its cgroup quota).
	CPUMillicores      int64 `json:"nc,omitempty"`
	CPUCores           int32 `json:"ncc,omitempty"`
	CPULimitMillicores int64 `json:"ncl,omitempty"`
	// CPUThrottledPercent is the share of its cgroup quota's scheduler periods in which the
	// node was throttled; nil where no quota was set or its counters were not read.
	CPUThrottledPercent *int64 `json:"nth,omitempty"`
	// GC pauses, from GCSource (GCFromLog or GCFromSystemLogs; empty: none read).
	GCSource string `json:"gs,omitempty"`
	// Log errors and the worst line, from system_views.system_logs; Logs is false where the
	// node does not feed that table, and these figures are then unknown.
	Logs          bool   `json:"l,omitempty"`
	GCPauses      int64  `json:"gn,omitempty"`
	GCTotalMillis int64  `json:"gt,omitempty"`
	GCMaxMillis   int64  `json:"gm,omitempty"`
	LogErrors     int64  `json:"le,omitempty"`
	OutOfMemory   int64  `json:"oom,omitempty"`
	Worst         string `json:"q,omitempty"`
	// Missing says why figures are absent (Missing* codes); per node, so Add leaves it out.
	Missing []string `json:"na,omitempty"`
}

// Severity orders nodes for listing: the ones with something to say first.
func (n ServerNode) Severity() int64 {
	return n.OutOfMemory*1e12 + n.Dropped*1e6 + n.Blocked*1e5 + n.BlockedPeak*1e5 + n.PendingPeak*100 + n.GCMaxMillis + n.BacklogPeak
}

// Add sums o into n: counts add, peaks and latencies take the larger, the worst line the
// first seen.
func (n *ServerNode) Add(o ServerNode) {
	n.Count += max(o.Count, 1)
	n.Mutations += o.Mutations
	n.Reads += o.Reads
	if o.PendingPeak > n.PendingPeak {
		n.PendingPeak, n.PendingStage = o.PendingPeak, o.PendingStage
	}
	n.BlockedPeak = max(n.BlockedPeak, o.BlockedPeak)
	n.Blocked += o.Blocked
	n.Dropped += o.Dropped
	n.Hints += o.Hints
	n.Compactions += o.Compactions
	n.BacklogBefore += o.BacklogBefore
	n.BacklogAfter += o.BacklogAfter
	n.BacklogPeak += o.BacklogPeak
	n.CompactionBytesLeft += o.CompactionBytesLeft
	n.Flushes += o.Flushes
	if n.SSTableSource == "" {
		n.SSTableSource = o.SSTableSource
	}
	n.SSTablesBefore += o.SSTablesBefore
	n.SSTablesAfter += o.SSTablesAfter
	n.SSTablesPeak += o.SSTablesPeak
	n.PendingCompactions = addPtr(n.PendingCompactions, o.PendingCompactions)
	n.PendingCompactionsPeak = addPtr(n.PendingCompactionsPeak, o.PendingCompactionsPeak)
	n.TableMiBBefore += o.TableMiBBefore
	n.TableMiBAfter += o.TableMiBAfter
	n.DiskMiB += o.DiskMiB
	n.CoordWriteP99Micros = max(n.CoordWriteP99Micros, o.CoordWriteP99Micros)
	n.CoordReadP99Micros = max(n.CoordReadP99Micros, o.CoordReadP99Micros)
	n.CoordResolution = max(n.CoordResolution, o.CoordResolution)
	n.CPUMillicores += o.CPUMillicores
	n.CPUCores += o.CPUCores
	n.CPULimitMillicores += o.CPULimitMillicores
	if o.CPUThrottledPercent != nil && (n.CPUThrottledPercent == nil || *o.CPUThrottledPercent > *n.CPUThrottledPercent) {
		pct := *o.CPUThrottledPercent
		n.CPUThrottledPercent = &pct // the most throttled node's
	}
	if n.GCSource == "" || o.GCSource == GCFromSystemLogs {
		n.GCSource = o.GCSource // a sum with any partial source is partial
	}
	n.Logs = n.Logs || o.Logs
	n.GCPauses += o.GCPauses
	n.GCTotalMillis += o.GCTotalMillis
	n.GCMaxMillis = max(n.GCMaxMillis, o.GCMaxMillis)
	n.LogErrors += o.LogErrors
	n.OutOfMemory += o.OutOfMemory
	if n.Worst == "" {
		n.Worst = o.Worst
	}
}

// Bound fits the encoding in MaxServerBytes. Callers list the most telling nodes first.
// First the timeline goes down to half its points (a window is sampled about ten times, so
// this rarely costs anything), then the last nodes move into Rest, which keeps every total
// exact but no quoted line; the timeline, which nothing else can replace, goes last.
func (s *Server) Bound() {
	if len(s.Error) > 256 {
		s.Error = s.Error[:256]
	}
	size := func() int { b, _ := json.Marshal(s); return len(b) }
	if size() > MaxServerBytes {
		s.Timeline.ShrinkTo(MaxServerPoints / 2)
	}
	for size() > MaxServerBytes && len(s.Nodes) > 0 {
		last := s.Nodes[len(s.Nodes)-1]
		s.Nodes = s.Nodes[:len(s.Nodes)-1]
		if s.Rest == nil {
			s.Rest = &ServerNode{}
		}
		last.Worst = ""
		s.Rest.Add(last)
		s.Rest.Node = ""
	}
	if size() > MaxServerBytes && s.Rest != nil {
		s.Rest.PendingStage = ""
	}
	for size() > MaxServerBytes && s.Timeline != nil {
		if len(s.Timeline.Points) <= 1 {
			s.Timeline = nil
			break
		}
		s.Timeline.ShrinkTo(len(s.Timeline.Points) / 2)
	}
}

// WriterCPU is a writer's own CPU over its window: what it used against its cgroup limit,
// how often the kernel throttled it, and how long runnable goroutines waited for a thread.
type WriterCPU struct {
	// UsedMillicores is CPU time over wall time; LimitMillicores the cgroup quota (0: none).
	UsedMillicores  int64 `json:"u"`
	LimitMillicores int64 `json:"l,omitempty"`
	// ThrottledPercent is the share of scheduler periods in which the cgroup was throttled.
	ThrottledPercent int64 `json:"t,omitempty"`
	// Periods and ThrottledPeriods are the window's CFS periods and those the cgroup was
	// throttled in (cpu.stat's nr_periods and nr_throttled), both 0 where the cgroup has no
	// quota or cpu.stat could not be read: what tells "never throttled" from "not read",
	// and a few throttled periods from none, which the whole percent cannot.
	Periods          int64 `json:"np,omitempty"`
	ThrottledPeriods int64 `json:"nt,omitempty"`
	// SchedP99Micros is the Go scheduler's p99 delay before a runnable goroutine ran.
	SchedP99Micros int64 `json:"s,omitempty"`
	// GOMAXPROCS the writer ran with.
	Procs int32 `json:"p,omitempty"`
	// Concurrency and Rate are the load this writer drove (requests in flight in a closed
	// loop, operations per second at a fixed rate), for Little's law in the verdict.
	Concurrency int32 `json:"c,omitempty"`
	Rate        int64 `json:"r,omitempty"`
}

// addPtr sums two figures that may be unknown (nil): known if either is.
func addPtr(a, b *int64) *int64 {
	if b == nil {
		return a
	}
	v := *b
	if a != nil {
		v += *a
	}
	return &v
}
