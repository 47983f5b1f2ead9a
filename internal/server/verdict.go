package server

import (
	"fmt"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// Evidence is what the verdict is decided on: the client's figures, the writers' CPU and the
// server's figures.
type Evidence struct {
	// Operations succeeded and Failed in the window; Timeouts among the failed (server and
	// client timeouts).
	Operations, Failed, Timeouts int64
	WindowMillis                 int64
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

// Thresholds of the verdict. A writer at 90% of its CPU has no headroom left for the driver's
// bursts; throttling in a fifth of CFS periods stretches latencies by whole periods (100 ms);
// a runnable goroutine waiting 5 ms for a thread dwarfs a sub-millisecond request.
const (
	cpuBusyPercent      = 90
	throttledPercent    = 20
	schedDelayMicros    = 5000
	timeoutRatioPerMill = 1 // timeouts in more than 0.1% of operations
	gcPercentOfWindow   = 5
	littleSlackPercent  = 85 // achieved throughput within this of in-flight / latency
	rateMissedPercent   = 95
)

// Verdict decides who limited the run. Writer signs are the writers' own resources; cluster
// signs are queues, blocking, drops, timeouts and long GC on the nodes. Signs on one side
// only decide; signs on both, or none, leave it Unclear, except a closed loop with a cluster
// that showed nothing: its throughput is what its requests in flight allow (Little's law), so
// the writers were the limit.
func Verdict(e Evidence) *cbv1.Bottleneck {
	b := &cbv1.Bottleneck{}
	var writers, cluster []string

	for _, c := range e.CPU {
		i := c.Index
		limit := c.LimitMillicores
		what := "CPU limit"
		if limit == 0 && c.Procs > 0 {
			limit, what = int64(c.Procs)*1000, "GOMAXPROCS cores"
		}
		if limit > 0 {
			pct := c.UsedMillicores * 100 / limit
			if pct > b.WriterCPUPercent {
				b.WriterCPUPercent = pct
			}
			if pct >= cpuBusyPercent {
				writers = append(writers, fmt.Sprintf("writer %d used %dm of its %dm %s (%d%%)", i, c.UsedMillicores, limit, what, pct))
			}
		}
		b.WriterThrottledPercent = max(b.WriterThrottledPercent, c.ThrottledPercent)
		if c.ThrottledPercent >= throttledPercent {
			writers = append(writers, fmt.Sprintf("writer %d was CPU-throttled in %d%% of scheduler periods", i, c.ThrottledPercent))
		}
		b.WriterSchedP99Micros = max(b.WriterSchedP99Micros, c.SchedP99Micros)
		if c.SchedP99Micros >= schedDelayMicros {
			writers = append(writers, fmt.Sprintf("writer %d's goroutines waited up to %s for a thread (p99)", i, Millis(c.SchedP99Micros/1000)))
		}
	}

	attempted := e.Operations + e.Failed
	if attempted > 0 && e.Timeouts*1000 > attempted*timeoutRatioPerMill {
		cluster = append(cluster, fmt.Sprintf("%s of %s operations timed out", Count(e.Timeouts), Count(attempted)))
	}
	if s := e.Server; s != nil {
		t := s.Total
		if t.Dropped > 0 {
			cluster = append(cluster, fmt.Sprintf("nodes dropped %s messages", Count(t.Dropped)))
		}
		if t.Blocked > 0 || t.BlockedPeak > 0 {
			cluster = append(cluster, fmt.Sprintf("nodes blocked %s requests", Count(max(t.Blocked, t.BlockedPeak))))
		}
		if t.PendingPeak >= pendingWorthSaying {
			cluster = append(cluster, fmt.Sprintf("up to %s tasks waited in %s", Count(t.PendingPeak), t.PendingStage))
		}
		if t.Logs != nil && e.WindowMillis > 0 && s.NodesRead > 0 &&
			t.Logs.GCTotalMillis*100 > e.WindowMillis*int64(s.NodesRead)*gcPercentOfWindow {
			cluster = append(cluster, fmt.Sprintf("GC paused the nodes %s in total over a %s window", Millis(t.Logs.GCTotalMillis), Millis(e.WindowMillis)))
		}
		if t.Logs != nil && t.Logs.OutOfMemory > 0 {
			cluster = append(cluster, "a node ran out of memory")
		}
	}

	switch {
	case len(writers) > 0 && len(cluster) == 0:
		b.Verdict, b.Evidence = cbv1.BottleneckWriters, writers
	case len(cluster) > 0 && len(writers) == 0:
		b.Verdict, b.Evidence = cbv1.BottleneckCluster, cluster
	case len(cluster) > 0:
		b.Verdict, b.Evidence = cbv1.BottleneckUnclear, append(writers, cluster...)
	default:
		b.Verdict = cbv1.BottleneckUnclear
		b.Evidence = idle(e)
		if e.Server != nil && e.InFlight > 0 && littleBound(e) {
			b.Verdict = cbv1.BottleneckWriters
		}
	}
	if len(b.Evidence) > 10 {
		b.Evidence = b.Evidence[:10]
	}
	return b
}

// littleBound says whether throughput is what the requests in flight allow at the measured
// latency: throughput × latency ≈ in flight.
func littleBound(e Evidence) bool {
	if e.WindowMillis <= 0 || e.MeanServiceMicros <= 0 {
		return false
	}
	achieved := float64(e.Operations) * 1000 / float64(e.WindowMillis)
	bound := float64(e.InFlight) * 1e6 / float64(e.MeanServiceMicros)
	return achieved*100 >= bound*littleSlackPercent
}

// idle explains a run in which neither side showed strain.
func idle(e Evidence) []string {
	switch {
	case e.Server == nil:
		return []string{"the nodes were not read, so the cluster's side is unknown"}
	case e.InFlight > 0 && littleBound(e):
		ops := e.Operations * 1000 / max(e.WindowMillis, 1)
		return []string{
			fmt.Sprintf("throughput (%s ops/s) is what %s requests in flight allow at %s µs each (Little's law): raise writers.concurrency or writers.replicas",
				Count(ops), Count(e.InFlight), Count(e.MeanServiceMicros)),
			"the nodes showed no queueing, blocking, drops or timeouts",
		}
	case e.TargetRate > 0:
		ops := e.Operations * 1000 / max(e.WindowMillis, 1)
		if ops*100 >= e.TargetRate*rateMissedPercent {
			return []string{fmt.Sprintf("the target rate (%s ops/s) was met and neither side showed strain", Count(e.TargetRate))}
		}
		return []string{fmt.Sprintf("%s of the target %s ops/s were achieved, yet neither side showed strain", Count(ops), Count(e.TargetRate))}
	}
	return []string{"neither the writers nor the nodes showed strain"}
}

// Judge gathers the evidence from merged results and the writers' summaries and returns the
// verdict; results.Merge calls it once the client's figures are known.
func Judge(r *cbv1.Results, sums []*summary.Summary) *cbv1.Bottleneck {
	e := Evidence{
		Operations:   r.Operations,
		WindowMillis: r.WindowMillis,
		Timeouts:     r.Errors.WriteTimeout + r.Errors.ReadTimeout + r.Errors.ClientTimeout,
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
	if e.TargetRate > 0 {
		e.InFlight = 0
	}
	if len(e.CPU) == 0 && e.Server == nil {
		return nil
	}
	return Verdict(e)
}
