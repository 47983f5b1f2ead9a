package nodewatch

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/summary"
)

// Assign picks the nodes writer index of writers watches: every writers-th node from its
// index, so the nodes are shared out and each is read by exactly one writer.
func Assign(targets []Target, index, writers int32) []Target {
	var out []Target
	for i := int(index); i < len(targets) && writers > 0; i += int(writers) {
		out = append(out, targets[i])
	}
	return out
}

// Sampler reads its nodes at the window's start, every interval during it (keeping only the
// peaks), and at its end. The counters of the figures are the differences between the two
// ends, so the ends are where every writer's window starts and after every writer's ended.
type Sampler struct {
	session *gocql.Session
	targets []Target
	now     func() time.Time
	from    time.Time

	mu     sync.Mutex
	before map[string]*Snapshot
	// procs are the nodes that run on this machine, with their CPU time at the start.
	procs map[string]localStart
	// remote are the other nodes whose management API serves metrics, with their reading
	// at the start.
	remote map[string]remoteStart
	peaks  map[string]*Peaks
	errs   []string
	// tl builds the timeline sample by sample, with the pauses the local nodes' gc logs
	// show since the previous sample.
	tl     *timelineBuilder
	gcLogs []*nodeproc.GCTail
	// perfs read the collections of local JVMs that log none, from their counters.
	perfs []*perfTail

	watching bool
	stop     chan struct{}
	done     chan struct{}
}

// Begin takes the first snapshots now. A writer calls it where the measured window starts
// for every writer: before arriving at the start barrier when there is no warm-up (nobody
// sends before the common start), at the warm-up's end otherwise. Sampling starts with Watch.
func Begin(ctx context.Context, s *gocql.Session, targets []Target, now func() time.Time) *Sampler {
	if now == nil {
		now = time.Now
	}
	from := now()
	// The compaction history is counted from a minute before the window: both ends count the
	// rows since then, so a node's clock a little off the writer's cancels out.
	targets = append([]Target(nil), targets...)
	for i := range targets {
		targets[i].CompactedSince = from.Add(-time.Minute)
	}
	sm := &Sampler{session: s, targets: targets, now: now, from: from,
		before: map[string]*Snapshot{}, peaks: map[string]*Peaks{}, procs: map[string]localStart{},
		remote: map[string]remoteStart{}, stop: make(chan struct{}), done: make(chan struct{})}
	// The counters first, as close to the window's start as they can be read; then the
	// node processes and their table directories, which take longer to find.
	for _, t := range sm.targets {
		sm.peaks[t.Node] = NewPeaks()
		snap, err := Read(ctx, s, t, sm.from)
		if err != nil {
			sm.errs = append(sm.errs, err.Error())
			continue
		}
		sm.before[t.Node] = snap
	}
	for _, t := range targets {
		if p, ok := nodeproc.FindProcess(t.Node, t.Port); ok {
			if cpu, err := p.CPU(); err == nil {
				start := localStart{proc: p, cpu: cpu, at: time.Now(), tableDirs: tableDirs(ctx, s, t), hints: NewHintTally(hintsDir(ctx, s, t))}
				if p.GCLog == "" {
					start.perf = startPerf(p)
				}
				start.throttle, start.throttling = p.Throttling()
				sm.procs[t.Node] = start
			}
		}
	}
	var others []string
	for _, t := range targets {
		if _, ok := sm.procs[t.Node]; !ok {
			others = append(others, t.Node)
		}
	}
	at := time.Now()
	for node, m := range scrapeAll(ctx, others, sm.table()) {
		sm.remote[node] = remoteStart{m, at}
	}
	sm.tableFigures(sm.before, sm.startMetrics())
	sm.tl = newTimelineBuilder(sm.from, 0, sm.before)
	for _, start := range sm.procs {
		if start.proc.GCLog != "" {
			sm.gcLogs = append(sm.gcLogs, nodeproc.NewGCTail(start.proc.GCLog, sm.from))
		}
		if start.perf.path != "" {
			sm.perfs = append(sm.perfs, &perfTail{path: start.perf.path, last: start.perf.at})
		}
	}
	return sm
}

// Watch samples every interval, keeping the peaks, until Stop. A sampler never watched
// still takes its last snapshots at Stop.
func (sm *Sampler) Watch(ctx context.Context, every time.Duration) {
	sm.watching = true
	sm.tl.tl.IntervalMillis = every.Milliseconds()
	go sm.loop(ctx, every)
}

// Start is Begin and Watch at once.
func Start(ctx context.Context, s *gocql.Session, targets []Target, every time.Duration, now func() time.Time) *Sampler {
	sm := Begin(ctx, s, targets, now)
	sm.Watch(ctx, every)
	return sm
}

// Watches says whether the sampler reads any node.
func (sm *Sampler) Watches() bool { return len(sm.targets) > 0 }

func (sm *Sampler) loop(ctx context.Context, every time.Duration) {
	defer close(sm.done)
	if every <= 0 {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sm.stop:
			return
		case <-tick.C:
		}
		snaps := map[string]*Snapshot{}
		for _, t := range sm.targets {
			snap, err := Read(ctx, sm.session, t, sm.now())
			if err != nil {
				continue // a node too busy to answer shows in the other figures
			}
			snaps[t.Node] = snap
		}
		sm.tableFigures(snaps, scrapeAll(ctx, sm.remoteNodes(), sm.table()))
		sm.mu.Lock()
		for node, snap := range snaps {
			sm.peaks[node].Observe(snap)
		}
		sm.mu.Unlock()
		sm.sample(snaps, sm.now())
	}
}

// sample adds a point to the timeline, with the local nodes' GC pauses since the last one.
func (sm *Sampler) sample(snaps map[string]*Snapshot, at time.Time) {
	var gc []nodeproc.GCPauses
	for _, tail := range sm.gcLogs {
		if g, err := tail.Next(at); err == nil {
			gc = append(gc, g)
		}
	}
	for _, tail := range sm.perfs {
		if g, err := tail.next(); err == nil {
			gc = append(gc, g)
		}
	}
	sm.mu.Lock()
	sm.tl.add(Sample{At: at, Snaps: snaps, GC: gc})
	sm.mu.Unlock()
}

// localStart is a node process and its CPU time when the window started.
type localStart struct {
	proc *nodeproc.Process
	cpu  time.Duration
	at   time.Time // monotonic
	// tableDirs hold the benchmark table's SSTables.
	tableDirs []string
	// hints counts the records of its hints directory.
	hints *HintTally
	// perf is its JVM's collections at the start, where it logs none to a file.
	perf perfStart
	// throttle is its quota's cgroup's counters at the start, where one sets a quota.
	throttle   nodeproc.Throttling
	throttling bool
}

// table is the benchmark table, which every target shares.
func (sm *Sampler) table() tableName {
	if len(sm.targets) == 0 {
		return tableName{}
	}
	return tableName{sm.targets[0].Keyspace, sm.targets[0].Table}
}

// remoteNodes are the nodes read through their metrics endpoint.
func (sm *Sampler) remoteNodes() []string {
	var out []string
	for node := range sm.remote {
		out = append(out, node)
	}
	return out
}

// startMetrics is the metrics endpoints' readings at the window's start.
func (sm *Sampler) startMetrics() map[string]jvmMetrics {
	out := map[string]jvmMetrics{}
	for node, r := range sm.remote {
		out[node] = r.m
	}
	return out
}

// tableFigures adds the benchmark table's SSTables and the hints to the snapshots: counted in
// their directories for the nodes on this machine, from the metrics endpoints' readings
// (remote) for the others.
func (sm *Sampler) tableFigures(snaps map[string]*Snapshot, remote map[string]jvmMetrics) {
	for node, snap := range snaps {
		if snap == nil {
			continue
		}
		if start, ok := sm.procs[node]; ok {
			if n, ok := countSSTables(start.tableDirs); ok {
				snap.SSTables, snap.SSTableSource = n, summary.SSTablesFromDisk
			}
			if start.hints.Update() {
				snap.HintsStored, snap.HintsDelivered = start.hints.Counts()
				snap.HintsRead = true
			}
			continue
		}
		m, ok := remote[node]
		if ok && m.sstables >= 0 {
			snap.SSTables, snap.PendingCompactions, snap.SSTableSource = m.sstables, m.pendingCompactions, summary.SSTablesFromMetrics
		}
		if ok && m.hasHints() {
			snap.HintsStored, snap.HintsDelivered, snap.HintsRead = int64(m.hintsStored), int64(m.hintsDelivered), true
		}
	}
}

// remoteStart is a node's metrics endpoint's reading when the window started.
type remoteStart struct {
	m  jvmMetrics
	at time.Time // monotonic
}

// fromMetrics is a node's figures over the window from its metrics endpoint's two readings:
// CPU and stop-the-world collections, with no core count and no longest pause.
func fromMetrics(start remoteStart, end jvmMetrics, endAt time.Time) *Local {
	l := &Local{Wall: endAt.Sub(start.at), GCSource: summary.GCFromMetrics}
	if start.m.hasCPU && end.hasCPU {
		l.CPU = time.Duration(max(end.cpuSeconds-start.m.cpuSeconds, 0) * float64(time.Second))
	} else {
		l.Missing = append(l.Missing, summary.MissingCPUMetrics)
	}
	if start.m.hasGC && end.hasGC {
		l.GC = &nodeproc.GCPauses{Count: int64(max(end.gcPauses-start.m.gcPauses, 0)),
			TotalMicros: int64(max(end.gcSeconds-start.m.gcSeconds, 0) * 1e6)}
	} else {
		l.Missing = append(l.Missing, summary.MissingGCMetrics)
	}
	return l
}

// local reads a node process's figures for the window, from the process where the node is
// on this machine, else from its metrics endpoint as read at the end (ends); with what is
// missing and why when neither is readable.
func (sm *Sampler) local(node string, to time.Time, ends map[string]jvmMetrics, endAt time.Time) *Local {
	start, ok := sm.procs[node]
	if !ok {
		rs, ok1 := sm.remote[node]
		end, ok2 := ends[node]
		if ok1 && ok2 {
			return fromMetrics(rs, end, endAt)
		}
		return remoteUnread
	}
	l := &Local{Wall: time.Since(start.at)}
	if cpu, err := start.proc.CPU(); err == nil {
		a := start.proc.Allowance()
		l.CPU, l.Cores, l.LimitMillicores = cpu-start.cpu, a.Cores, a.Millicores()
		if end, ok := start.proc.Throttling(); ok && start.throttling {
			l.ThrottledPercent, l.Throttling = nodeproc.ThrottledPercent(start.throttle, end)
		}
	} else {
		l.Missing = append(l.Missing, summary.MissingCPUProc)
	}
	switch {
	case start.proc.GCLog != "":
		if gc, err := nodeproc.ReadGCLog(start.proc.GCLog, sm.from, to); err == nil {
			l.GC = &gc
		}
	case start.perf.missing != "":
		l.Missing = append(l.Missing, start.perf.missing)
	default:
		if end, err := nodeproc.GCCounters(start.perf.path); err == nil {
			l.GC, l.GCSource = perfPauses(start.perf.at, end), summary.GCFromPerfData
		} else {
			l.Missing = append(l.Missing, summary.MissingGCPerfUnreadable)
		}
	}
	return l
}

// Stop takes the last snapshots and the window's log lines, and returns the figures of every
// node read at both ends, bounded for the summary. It returns nil when the sampler watched no
// node.
func (sm *Sampler) Stop(ctx context.Context) *summary.Server {
	close(sm.stop)
	if sm.watching {
		<-sm.done
	}
	if len(sm.targets) == 0 {
		return nil
	}
	to := sm.now()
	endAt := time.Now()
	ends := scrapeAll(context.WithoutCancel(ctx), sm.remoteNodes(), sm.table())
	var nodes []summary.ServerNode
	last := map[string]*Snapshot{}
	for _, t := range sm.targets {
		before := sm.before[t.Node]
		if before == nil {
			continue
		}
		after, err := Read(ctx, sm.session, t, to)
		if err != nil {
			sm.errs = append(sm.errs, err.Error())
			continue
		}
		last[t.Node] = after
		sm.tableFigures(map[string]*Snapshot{t.Node: after}, ends)
		sm.mu.Lock()
		peaks := *sm.peaks[t.Node]
		sm.mu.Unlock()
		nodes = append(nodes, Figures(before, after, peaks, ReadLogs(ctx, sm.session, t, sm.from, to), sm.local(t.Node, to, ends, endAt)))
	}
	sm.sample(last, to)
	out := Bounded(nodes)
	out.Timeline = sm.tl.timeline()
	if len(sm.errs) > 0 {
		out.Error = fmt.Sprintf("reading %d of %d nodes failed: %s", len(sm.errs), len(sm.targets), strings.Join(sm.errs, "; "))
	}
	out.Bound()
	return out
}
