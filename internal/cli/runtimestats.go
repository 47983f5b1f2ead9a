package cli

import (
	"fmt"
	"io"
	"runtime/metrics"

	"github.com/cassbench/cassbench/internal/summary"
)

// runtimeStats reports what the writer cost in Go terms: heap allocations per operation and
// the share of its CPU the garbage collector took. Both cover the whole process (connecting,
// the barrier, warm-up), so they slightly overstate the steady state.
func runtimeStats(w io.Writer, sum *summary.Summary) {
	samples := []metrics.Sample{
		{Name: "/gc/heap/allocs:objects"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/user:cpu-seconds"},
		{Name: "/cpu/classes/scavenge/total:cpu-seconds"},
	}
	metrics.Read(samples)
	value := func(i int) float64 {
		switch samples[i].Value.Kind() {
		case metrics.KindUint64:
			return float64(samples[i].Value.Uint64())
		case metrics.KindFloat64:
			return samples[i].Value.Float64()
		}
		return 0
	}
	var ops int64
	for _, o := range sum.AllOps() {
		ops += o.OK + o.Failed()
	}
	gc, user, scavenge := value(1), value(2), value(3)
	if ops == 0 || gc+user+scavenge == 0 {
		return
	}
	fmt.Fprintf(w, "runtime: %.1f heap allocations per operation, GC %.1f%% of CPU\n",
		value(0)/float64(ops), 100*gc/(gc+user+scavenge))
}
