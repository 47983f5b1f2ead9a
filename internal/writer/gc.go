package writer

import (
	"os"
	"runtime"
	"runtime/debug"
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
const (
	gcPercent     = 800
	gcMemoryLimit = 24 << 20
	gcPerInFlight = 16 << 10
)

// tuneGC sets the writer's collector and returns what restores the previous settings. A
// GOGC or GOMEMLIMIT in the environment is the operator's choice and is left as it is.
func tuneGC(inFlight int) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	percent := debug.SetGCPercent(gcPercent)
	limit := debug.SetMemoryLimit(int64(ms.HeapAlloc) + gcMemoryLimit + int64(inFlight)*gcPerInFlight)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
