package writer

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// The writer's live heap is a few MiB (buffers of the statements and connections, the
// latency sketches) while it allocates tens of MiB a second inside the driver. With the
// default GOGC=100 the collector runs every few MiB and takes about a tenth of the CPU the
// benchmark needs; a larger GC percent makes it run several times less often, and the soft
// memory limit collects earlier rather than let the heap outgrow a small pod.
//
// The limit is headroom above what is live when the load starts: what the process keeps for
// good before it (in `cassbench writer` and `cassbench run`, the admission code's package
// state) would otherwise sit under a fixed limit and keep the collector running all the time
// (measured: 18% of the CPU with a fixed 32 MiB while admission kept 20 MiB live). The
// headroom sets the writer pod's peak RSS: cassbench-writer at 128 in flight, one thread,
// measured 44 MiB with 32 MiB of headroom (GC 2.0% of the CPU), 35 MiB with 22 MiB (3.5%) and
// 31 MiB with 18 MiB (6.6%); the peak is the limit plus some 11 MiB of mapped binary.
//
// Each load goroutine adds its stack and its statistics after the limit is set, about 16 KiB:
// at 1,024 in flight that took 16 MiB of the headroom, and the collector ran all the time
// (10.5% of the CPU, bench-writer --concurrency 1024), so the headroom grows with them.
//
// The settings are the process's, not a load's: `cassbench run` runs several loads in one
// process, and each used to set the limit in turn (the last one won) and put back what the one
// before it had set, in whatever order they ended. Now the first load in saves what was set
// before, the last one out puts it back, and the limit in between covers every load running.
//
// A writer pod runs one load, and the seeds run it closed, with one insert in flight: it
// allocates little a second, and with 24 MiB of headroom its heap grew between collections
// until the pod peaked at 24-27 MiB. A lone closed loop below 128 in flight whose cgroup sets
// no CPU quota therefore gets 8 MiB plus 128 KiB a request (reaching the 24 MiB at 128): its
// peak was 21.1-21.4 MiB at one in flight against 24.5-26.6 with 24 MiB, for 0.72-1.33 times
// the writes per CPU-second (median 0.89; a later five rounds measured 0.99, range 0.84-1.31,
// docs/writer-efficiency.md). Everything else keeps 24 MiB:
//   - a writer held to a CPU quota pays for every collection out of it: at 100m and four in
//     flight, TestVerdictWritersWhenThrottledByAQuota made 479-562 ops/s with the smaller
//     headroom against 2,256 with 24 MiB, and its late node reads made the verdict Unclear;
//   - an open loop (and a capacity search's rounds): with 12.5 MiB at 32 in flight the
//     collector ran while goroutines had to wake, and the schedule lag p50 rose from
//     59-81 µs to 211-584 µs;
//   - a process running several loads (`cassbench run` with several writers): six closed
//     loops with one in flight each under 8 MiB used 98% of their core
//     (TestVerdictClusterWhenANodeSaturatesItsCPU).
const (
	gcPercent      = 800
	gcMemoryLimit  = 24 << 20
	gcMinimumLimit = 8 << 20
	gcPerRequest   = 128 << 10
	gcPerInFlight  = 16 << 10
)

// gcLoad is what the collector's settings depend on in one load.
type gcLoad struct {
	inFlight int
	// open is an open loop (writers.rate), which must wake on time.
	open bool
	// quota is a CPU quota on the writer's cgroup, which pays for every collection.
	quota bool
}

// gcHeadroom is the soft limit above the live heap for the loads running in the process.
func gcHeadroom(loads []gcLoad) int64 {
	var stacks int64
	for _, l := range loads {
		stacks += int64(l.inFlight) * gcPerInFlight
	}
	if len(loads) == 1 && !loads[0].open && !loads[0].quota {
		return min(int64(gcMemoryLimit), gcMinimumLimit+int64(loads[0].inFlight)*gcPerRequest) + stacks
	}
	return gcMemoryLimit + stacks
}

// collectorSettings holds the collector's settings for every load of the process: the first load
// in saves what was set before, the last one out puts it back, and each change in between
// sets the limit for all the loads then running.
type collectorSettings struct {
	mu     sync.Mutex
	loads  map[*gcLoad]struct{}
	base   int64
	before struct {
		percent int
		limit   int64
	}
}

var gcSettings collectorSettings

// tuneGC sets the collector for one more load and returns what takes it away again. A GOGC
// or GOMEMLIMIT in the environment is the operator's choice and is left as it is.
func tuneGC(l gcLoad) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	s := &gcSettings
	s.mu.Lock()
	defer s.mu.Unlock()
	// The live heap is measured again for every load: what earlier loads keep is theirs.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.base = int64(ms.HeapAlloc)
	if len(s.loads) == 0 {
		s.loads = map[*gcLoad]struct{}{}
		s.before.percent = debug.SetGCPercent(gcPercent)
		s.before.limit = debug.SetMemoryLimit(-1)
	}
	s.loads[&l] = struct{}{}
	debug.SetMemoryLimit(s.base + gcHeadroom(s.running()))
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			delete(s.loads, &l)
			if len(s.loads) == 0 {
				debug.SetGCPercent(s.before.percent)
				debug.SetMemoryLimit(s.before.limit)
				return
			}
			debug.SetMemoryLimit(s.base + gcHeadroom(s.running()))
		})
	}
}

// running lists the loads now running; callers hold mu.
func (s *collectorSettings) running() []gcLoad {
	out := make([]gcLoad, 0, len(s.loads))
	for l := range s.loads {
		out = append(out, *l)
	}
	return out
}
