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
//
// A closed loop with few requests in flight allocates little a second, so it needs less
// headroom for the same share of collector time: at one in flight the heap grew under GC
// percent 800 to some 13 MiB before a collection, and the pod peaked at 24.1 MiB
// (bench-writer, docs/writer-efficiency.md). Below 128 in flight a closed loop's headroom is
// therefore 8 MiB plus 128 KiB for each request in flight, reaching the 24 MiB that larger
// loads keep at 128. An open loop keeps the 24 MiB whatever its requests in flight: with 12.5
// MiB at 32 in flight and 500 ops/s its schedule lag p50 went from 59-81 µs to 211-584 µs
// (TestFixedRateReachesTarget, idle machine), the collector running while it should wake.
const (
	gcPercent      = 800
	gcMemoryLimit  = 24 << 20
	gcMinimumLimit = 8 << 20
	gcPerRequest   = 128 << 10
	gcPerInFlight  = 16 << 10
)

// gcHeadroom is the soft limit above the live heap for a load with inFlight requests, open
// (paced) or closed.
func gcHeadroom(inFlight int, open bool) int64 {
	if open {
		return gcMemoryLimit + int64(inFlight)*gcPerInFlight
	}
	return min(int64(gcMemoryLimit), gcMinimumLimit+int64(inFlight)*gcPerRequest) + int64(inFlight)*gcPerInFlight
}

// tuneGC sets the writer's collector and returns what restores the previous settings. A
// GOGC or GOMEMLIMIT in the environment is the operator's choice and is left as it is.
func tuneGC(inFlight int, open bool) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	percent := debug.SetGCPercent(gcPercent)
	limit := debug.SetMemoryLimit(int64(ms.HeapAlloc) + gcHeadroom(inFlight, open))
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
