package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strconv"

	"github.com/cassbench/cassbench/internal/summary"
)

// runtimeStats reports what the writer cost in Go terms: heap allocations per operation, the
// share of its CPU the garbage collector took and, where /proc/self/io is there, the read and
// write system calls per operation (how well requests share a send and responses a read).
// All cover the whole process (connecting, the barrier, warm-up), so they slightly overstate
// the steady state.
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
	syscalls := ""
	if r, wr, ok := syscallCounts(); ok {
		syscalls = fmt.Sprintf(", %.2f read and %.2f write system calls per operation", float64(r)/float64(ops), float64(wr)/float64(ops))
	}
	fmt.Fprintf(w, "runtime: %.1f heap allocations per operation, GC %.1f%% of CPU%s%s\n",
		value(0)/float64(ops), 100*gc/(gc+user+scavenge), syscalls, pathStats(sum.Paths))
}

// pathStats says which path carried the writes, and why the direct path left any to the
// driver.
func pathStats(p *summary.Paths) string {
	if p == nil {
		return ""
	}
	s := fmt.Sprintf(", write requests: %d direct, %d by the driver", p.Direct, p.Driver)
	if n := p.FellBack(); n > 0 {
		s += fmt.Sprintf(" (%d left by the direct path: no route %d, dial error %d, handshake %d, auth challenge %d, streams exhausted %d)",
			n, p.NoRoute, p.Dial, p.Handshake, p.Auth, p.Streams)
	}
	return s
}

// syscallCounts reads the process's read and write system calls from /proc/self/io.
func syscallCounts() (reads, writes int64, ok bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0, false
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, value, _ := bytes.Cut(sc.Bytes(), []byte(": "))
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil {
			continue
		}
		switch string(name) {
		case "syscr":
			reads, found = n, found+1
		case "syscw":
			writes, found = n, found+1
		}
	}
	return reads, writes, found == 2
}
