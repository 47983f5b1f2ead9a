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
// memory limit collects earlier rather than let the heap outgrow a small pod (at 128 in flight
// the process peaks near 55 MiB RSS with these values, 45 MiB with the defaults).
//
// The limit is headroom above what is live when the load starts: what the process keeps for
// good before it (the admission code's schemas and CEL programs, about 20 MiB) would
// otherwise sit under a fixed limit and keep the collector running all the time (measured:
// 18% of the CPU with a fixed 32 MiB, against 3% before admission moved into the binary).
const (
	gcPercent     = 800
	gcMemoryLimit = 32 << 20
)

// tuneGC sets the writer's collector and returns what restores the previous settings. A
// GOGC or GOMEMLIMIT in the environment is the operator's choice and is left as it is.
func tuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	percent := debug.SetGCPercent(gcPercent)
	limit := debug.SetMemoryLimit(int64(ms.HeapAlloc) + gcMemoryLimit)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
