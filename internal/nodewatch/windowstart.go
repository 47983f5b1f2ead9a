package nodewatch

import "time"

// WindowStarts tells the sampler that the window starts now, where Begin read the nodes
// earlier, in the quiet before it (the writers' barrier after a warm-up, or the start
// barrier): the counters must be read where nothing is sent, but the CPU and collections are
// rates over the window, and a span that began up to seconds before it counted the idle
// seconds too (a node saturating its core over an 8 s window read 80%). A local process's CPU,
// and its JVM's collection counters where it logs no GC, are read again now, which costs
// microseconds (a gc log's pauses are taken from Begin's time: pauses in an idle quiet are rare). A metrics endpoint's
// reading (up to 2 s, which would hold back the window's load) is kept, and its span counts
// from now: what the node used in the quiet before (an idle node's background) is counted in
// the window, not spread over it. Call it before Watch.
func (sm *Sampler) WindowStarts() {
	now := time.Now()
	for node, start := range sm.procs {
		if cpu, err := start.proc.CPU(); err == nil {
			start.cpu, start.at = cpu, now
		}
		if start.perf.path != "" && start.perf.missing == "" {
			if p := startPerf(start.proc); p.missing == "" {
				start.perf = p
			}
		}
		sm.procs[node] = start
	}
	for node, start := range sm.remote {
		if start.at.Before(now) {
			start.at = now
			sm.remote[node] = start
		}
	}
	for _, tail := range sm.perfs {
		for _, start := range sm.procs {
			if start.perf.path == tail.path {
				tail.last = start.perf.at
			}
		}
	}
}
