// Package verdict decides who limited a run, the writers or the cluster, from the client's
// figures, the writers' CPU and what the nodes showed, and says in plain words what went wrong
// on the nodes (the anomalies). It reads merged results only: the manager runs it when it
// merges the writers' summaries. docs/server.md gives the rules.
package verdict

import (
	"fmt"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
	"github.com/cassbench/cassbench/internal/summary"
)

// Evidence is what the verdict is decided on: the client's figures, the writers' CPU and the
// server's figures.
type Evidence struct {
	// Operations succeeded and Failed in the window. Among the failed: ServerTimeouts (the
	// nodes answered write or read timeout), ClientTimeouts (no answer within the writer's
	// request timeout), Unavailable (too few live replicas) and Overloaded (refused by a
	// node).
	Operations, Failed             int64
	ServerTimeouts, ClientTimeouts int64
	Unavailable, Overloaded        int64
	WindowMillis                   int64
	// OpsPerSecond is the run's throughput (completions in the common window over it).
	OpsPerSecond int64
	// MeanServiceMicros is the writers' mean service latency of successful operations.
	MeanServiceMicros int64
	// InFlight is writers × concurrency for a closed loop, 0 for a fixed rate; TargetRate the
	// total rate asked for (0 for a closed loop).
	InFlight, TargetRate int64
	// CPU of each writer that reported it.
	CPU []WriterCPU
	// Server is what the nodes did; nil when they were not read.
	Server *cbv1.ServerResults
}

// WriterCPU is one writer's CPU figures and its index.
type WriterCPU struct {
	Index int32
	summary.WriterCPU
}

// TargetShare is the least share of its target an open loop must achieve to count as having
// reached it.
const TargetShare = 0.98

// Thresholds of the verdict. A writer at 90% of its CPU has no headroom left for the driver's
// bursts; throttling in a fifth of CFS periods stretches latencies by whole periods (100 ms);
// a runnable goroutine waiting 5 ms for a thread dwarfs a sub-millisecond request. A node
// using 90% of the cores it can run on is saturated whatever its queues show; one under half
// of them had room for more requests.
const (
	cpuBusyPercent      = 90
	throttledPercent    = 20
	schedDelayMicros    = 5000
	timeoutRatioPerMill = 1 // timeouts in more than 0.1% of operations
	gcPercentOfWindow   = 5
	littleSlackPercent  = 85 // achieved throughput within this of in-flight / latency
	nodeBusyPercent     = 90
	nodeIdlePercent     = 50
)

// Verdict decides who limited the run, in this order:
//  1. an open loop that met its target was limited by nothing: TargetMet, with any strain
//     named as a note;
//  2. signs on one side only decide: writers' CPU, throttling and scheduling delay against
//     the nodes' CPU, queues, blocking, drops, timeouts, unavailable and overloaded errors,
//     GC and unreadable nodes; a throttled or starved writer's own client timeouts are its
//     own sign, not the cluster's;
//  3. signs on both sides are Unclear;
//  4. no sign at all in a closed loop is concurrency-bound (Writers) only when the nodes' CPU
//     was read and left room: a saturated node whose requests in flight are fewer than its
//     stage threads queues nothing, so quiet queues alone prove nothing.
func Verdict(e Evidence) *cbv1.Bottleneck {
	b := &cbv1.Bottleneck{}
	writers := writerSigns(e, b)
	cluster := clusterSigns(e, len(writers) > 0)

	switch {
	case targetMet(e):
		b.Verdict = cbv1.BottleneckTargetMet
		b.Evidence = []string{fmt.Sprintf("the target rate (%s ops/s) was met: %s ops/s achieved", numfmt.Count(e.TargetRate), numfmt.Count(e.OpsPerSecond))}
		for _, s := range append(writers, cluster...) {
			b.Evidence = append(b.Evidence, "met, though "+s)
		}
	case len(writers) > 0 && len(cluster) == 0:
		b.Verdict, b.Evidence = cbv1.BottleneckWriters, writers
	case len(cluster) > 0 && len(writers) == 0:
		b.Verdict, b.Evidence = cbv1.BottleneckCluster, cluster
	case len(cluster) > 0:
		b.Verdict, b.Evidence = cbv1.BottleneckUnclear, append(writers, cluster...)
	default:
		b.Verdict, b.Evidence = quiet(e)
	}
	if len(b.Evidence) > 10 {
		b.Evidence = b.Evidence[:10]
	}
	return b
}

func targetMet(e Evidence) bool {
	return e.TargetRate > 0 && float64(e.OpsPerSecond) >= TargetShare*float64(e.TargetRate)
}

// writerSigns names what held the writers back, and fills the writer figures of b.
func writerSigns(e Evidence, b *cbv1.Bottleneck) []string {
	var out []string
	for _, c := range e.CPU {
		i := c.Index
		limit := c.LimitMillicores
		what := "CPU limit"
		if limit == 0 && c.Procs > 0 {
			limit, what = int64(c.Procs)*1000, "GOMAXPROCS cores"
		}
		if limit > 0 {
			pct := c.UsedMillicores * 100 / limit
			b.WriterCPUPercent = max(b.WriterCPUPercent, pct)
			if pct >= cpuBusyPercent {
				out = append(out, fmt.Sprintf("writer %d used %dm of its %dm %s (%d%%)", i, c.UsedMillicores, limit, what, pct))
			}
		}
		b.WriterThrottledPercent = max(b.WriterThrottledPercent, c.ThrottledPercent)
		if c.ThrottledPercent >= throttledPercent {
			out = append(out, fmt.Sprintf("writer %d was CPU-throttled in %d%% of scheduler periods", i, c.ThrottledPercent))
		}
		b.WriterSchedP99Micros = max(b.WriterSchedP99Micros, c.SchedP99Micros)
		if c.SchedP99Micros >= schedDelayMicros {
			out = append(out, fmt.Sprintf("writer %d's goroutines waited up to %s for a thread (p99)", i, numfmt.Millis(c.SchedP99Micros/1000)))
		}
	}
	if len(out) > 0 && e.ClientTimeouts > 0 {
		out = append(out, fmt.Sprintf("%s operations timed out in the writers, which were held back themselves", numfmt.Count(e.ClientTimeouts)))
	}
	return out
}

// clusterSigns names what showed the cluster at its limit. Client timeouts count only when
// the writers were not held back (writersStrained): a starved writer answers late itself.
func clusterSigns(e Evidence, writersStrained bool) []string {
	var out []string
	attempted := e.Operations + e.Failed
	timeouts := e.ServerTimeouts
	if !writersStrained {
		timeouts += e.ClientTimeouts
	}
	if attempted > 0 && timeouts*1000 > attempted*timeoutRatioPerMill {
		out = append(out, fmt.Sprintf("%s of %s operations timed out", numfmt.Count(timeouts), numfmt.Count(attempted)))
	}
	if e.Unavailable > 0 {
		out = append(out, fmt.Sprintf("%s operations failed Unavailable: fewer replicas were alive than the consistency level needs", numfmt.Count(e.Unavailable)))
	}
	if e.Overloaded > 0 {
		out = append(out, fmt.Sprintf("the nodes refused %s operations as Overloaded", numfmt.Count(e.Overloaded)))
	}
	s := e.Server
	if s == nil {
		return out
	}
	for _, msg := range s.Errors {
		out = append(out, "a node could not be read: "+msg)
		break
	}
	for _, n := range s.Nodes {
		if pct, ok := nodeCPUPercent(n); ok && pct >= nodeBusyPercent {
			out = append(out, fmt.Sprintf("node %s's CPU was saturated: it used %s of the %s it could use (%d%%)", NodeName(n), numfmt.Cores(n.CPUMillicores), numfmt.Cores(nodeCPULimit(n)), pct))
		}
		if t := n.CPUThrottledPercent; t != nil && *t >= throttledPercent {
			out = append(out, fmt.Sprintf("node %s was held by its cgroup's CPU quota (%s) in %d%% of scheduler periods", NodeName(n), numfmt.Cores(n.CPULimitMillicores), *t))
		}
	}
	t := s.Total
	if t.Dropped > 0 {
		out = append(out, fmt.Sprintf("nodes dropped %s messages", numfmt.Count(t.Dropped))+
			where(s, func(n cbv1.NodeServerResults) int64 { return n.Dropped }))
	}
	if t.Blocked > 0 || t.BlockedPeak > 0 {
		out = append(out, fmt.Sprintf("nodes blocked %s requests", numfmt.Count(max(t.Blocked, t.BlockedPeak)))+
			where(s, func(n cbv1.NodeServerResults) int64 { return max(n.Blocked, n.BlockedPeak) }))
	}
	if t.PendingPeak >= pendingWorthSaying {
		out = append(out, fmt.Sprintf("up to %s tasks waited in %s", numfmt.Count(t.PendingPeak), t.PendingStage)+
			where(s, func(n cbv1.NodeServerResults) int64 { return n.PendingPeak }))
	}
	if t.GC != nil && e.WindowMillis > 0 && s.NodesRead > 0 &&
		t.GC.TotalMillis*100 > e.WindowMillis*int64(s.NodesRead)*gcPercentOfWindow {
		out = append(out, fmt.Sprintf("GC paused the nodes %s in total over a %s window", numfmt.Millis(t.GC.TotalMillis), numfmt.Millis(e.WindowMillis))+
			where(s, func(n cbv1.NodeServerResults) int64 {
				if n.GC == nil {
					return 0
				}
				return n.GC.TotalMillis
			}))
	}
	if t.Logs != nil && t.Logs.OutOfMemory > 0 {
		out = append(out, "a node ran out of memory")
	}
	return out
}

// nodeCPULimit is the CPU a node could use in millicores (0: not known): its limit where
// read, else its cores.
func nodeCPULimit(n cbv1.NodeServerResults) int64 {
	if n.CPULimitMillicores > 0 {
		return n.CPULimitMillicores
	}
	return int64(n.CPUCores) * 1000
}

// nodeCPUPercent is a node's CPU use in percent of what it could use, when both are known.
func nodeCPUPercent(n cbv1.NodeServerResults) (int64, bool) {
	limit := nodeCPULimit(n)
	if limit <= 0 || n.CPUMillicores <= 0 {
		return 0, false
	}
	return n.CPUMillicores * 100 / limit, true
}

// busiestNode is the node with the highest CPU share read, its share, and whether every node
// read had one.
func busiestNode(s *cbv1.ServerResults) (busiest cbv1.NodeServerResults, pct int64, all bool) {
	all = len(s.Nodes) > 0 && int64(len(s.Nodes)) == int64(s.NodesRead)
	for _, n := range s.Nodes {
		p, ok := nodeCPUPercent(n)
		if !ok {
			all = false
			continue
		}
		if p >= pct {
			busiest, pct = n, p
		}
	}
	return busiest, pct, all
}

// unknownCPU names the nodes whose CPU share is not known, and why, for a verdict that
// needed it.
func unknownCPU(s *cbv1.ServerResults) string {
	var parts []string
	for _, n := range s.Nodes {
		if _, ok := nodeCPUPercent(n); ok {
			continue
		}
		why := "its CPU was not read"
		for _, na := range n.NotAvailable {
			if r, ok := strings.CutPrefix(na, "CPU: "); ok {
				why = r
			}
		}
		if n.CPUMillicores > 0 {
			why = "what it could use was not known (on cass-operator pods that needs the datacenter's spec.resources.limits.cpu)"
		}
		parts = append(parts, fmt.Sprintf("node %s: %s", NodeName(n), why))
		if len(parts) == 3 {
			break
		}
	}
	if unlisted := int(s.NodesRead) - len(s.Nodes); unlisted > 0 {
		parts = append(parts, fmt.Sprintf("%d nodes whose figures were summed, not listed", unlisted))
	}
	return "the CPU of the nodes against what they could use was not known (" + strings.Join(parts, "; ") + ")"
}

// quiet decides a run in which neither side showed strain.
func quiet(e Evidence) (cbv1.BottleneckVerdict, []string) {
	switch {
	case e.Server == nil:
		return cbv1.BottleneckUnclear, []string{"the nodes were not read, so the cluster's side is unknown"}
	case e.InFlight > 0 && littleBound(e):
		return concurrencyBound(e)
	case e.TargetRate > 0:
		return cbv1.BottleneckUnclear, []string{fmt.Sprintf("%s of the target %s ops/s were achieved, yet neither side showed strain", numfmt.Count(e.OpsPerSecond), numfmt.Count(e.TargetRate))}
	}
	return cbv1.BottleneckUnclear, []string{"neither the writers nor the nodes showed strain"}
}

// concurrencyBound decides a quiet closed loop whose throughput is what its requests in
// flight allow (Little's law): the writers' concurrency bounded it unless a node may have
// been saturated without queueing, which only its CPU shows. A node's CPU read under half of
// what it could use leaves no doubt; under 90% with fewer requests in flight than its cores,
// the run's requests could not have kept it busy (each is worked on by one thread at a
// time); and one request in flight cannot saturate any node, which is idle at least while
// the request and its answer travel.
func concurrencyBound(e Evidence) (cbv1.BottleneckVerdict, []string) {
	inFlight := numfmt.Count(e.InFlight) + " requests in flight allow"
	if e.InFlight == 1 {
		inFlight = "1 request in flight allows"
	}
	little := fmt.Sprintf("throughput (%s ops/s) is what %s at %s µs each (Little's law)",
		numfmt.Count(e.OpsPerSecond), inFlight, numfmt.Count(e.MeanServiceMicros))
	raise := little + ": raise writers.concurrency or writers.replicas"
	quietNodes := "the nodes showed no queueing, drops or timeouts"
	busiest, pct, all := busiestNode(e.Server)
	switch {
	case all && pct < nodeIdlePercent:
		return cbv1.BottleneckWriters, []string{raise,
			fmt.Sprintf("the busiest node, %s, used %d%% of the CPU it could use, and %s", NodeName(busiest), pct, quietNodes)}
	case all && pct < nodeBusyPercent && e.InFlight*1000 < nodeCPULimit(busiest):
		return cbv1.BottleneckWriters, []string{raise,
			fmt.Sprintf("the busiest node, %s, used %d%% of the %s it could use, which %s requests in flight cannot keep busy, and %s",
				NodeName(busiest), pct, numfmt.Cores(nodeCPULimit(busiest)), numfmt.Count(e.InFlight), quietNodes)}
	case all:
		return cbv1.BottleneckUnclear, []string{little,
			fmt.Sprintf("node %s used %d%% of the CPU it could use: more requests in flight may or may not raise throughput", NodeName(busiest), pct)}
	case e.InFlight == 1 && pct < nodeIdlePercent:
		return cbv1.BottleneckWriters, []string{raise,
			"one request in flight keeps no node busy: each waits, idle, while the request and its answer travel, and " + quietNodes,
			unknownCPU(e.Server)}
	}
	return cbv1.BottleneckUnclear, []string{little,
		unknownCPU(e.Server) + ", and a saturated node with fewer requests in flight than its stage threads queues nothing: the queues alone cannot tell"}
}

// littleBound says whether throughput is what the requests in flight allow at the measured
// latency: throughput × latency ≈ in flight. A closed loop far below it spent its time
// between requests, in the writers.
func littleBound(e Evidence) bool {
	if e.MeanServiceMicros <= 0 {
		return false
	}
	bound := float64(e.InFlight) * 1e6 / float64(e.MeanServiceMicros)
	return float64(e.OpsPerSecond)*100 >= bound*littleSlackPercent
}

// Judge gathers the evidence from merged results and the writers' summaries and returns the
// verdict; results.Merge calls it once the client's figures are known.
func Judge(r *cbv1.Results, sums []*summary.Summary) *cbv1.Bottleneck {
	e, ok := evidenceOf(r, sums)
	if !ok {
		return nil
	}
	return Verdict(e)
}

// evidenceOf gathers the evidence of merged results and the writers' summaries; false when
// neither side was read.
func evidenceOf(r *cbv1.Results, sums []*summary.Summary) (Evidence, bool) {
	e := Evidence{
		Operations:     r.Operations,
		WindowMillis:   r.WindowMillis,
		OpsPerSecond:   r.OpsPerSecond,
		ServerTimeouts: r.Errors.WriteTimeout + r.Errors.ReadTimeout,
		ClientTimeouts: r.Errors.ClientTimeout,
		Unavailable:    r.Errors.Unavailable,
		Overloaded:     r.AttemptErrors.Overloaded,
		Failed: r.Errors.WriteTimeout + r.Errors.ReadTimeout + r.Errors.Unavailable + r.Errors.Overloaded +
			r.Errors.ClientTimeout + r.Errors.Other,
		Server: r.Server,
	}
	var weighted, ops int64
	for _, o := range []*cbv1.OperationResults{r.Writes, r.Reads} {
		if o != nil {
			weighted += o.Service.Mean * o.Operations
			ops += o.Operations
		}
	}
	// The kinds of workload.operations keep only their response latency, which is their
	// service latency in a closed loop, where Little's law is applied.
	for _, k := range r.OperationsByKind {
		weighted += k.Response.Mean * k.Operations
		ops += k.Operations
	}
	if ops > 0 {
		e.MeanServiceMicros = weighted / ops
	}
	for _, s := range sums {
		if s == nil || s.CPU == nil {
			continue
		}
		e.CPU = append(e.CPU, WriterCPU{s.Index, *s.CPU})
		if s.CPU.Rate > 0 {
			e.TargetRate += s.CPU.Rate
		} else {
			e.InFlight += int64(s.CPU.Concurrency)
		}
	}
	if r.Schedule != nil && r.Schedule.TargetOpsPerSecond > 0 {
		e.TargetRate = r.Schedule.TargetOpsPerSecond
	}
	if e.TargetRate > 0 {
		e.InFlight = 0
	}
	return e, len(e.CPU) > 0 || e.Server != nil
}
