package writer

import (
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/summary"
)

// cgroupDir is where a container sees its own cgroup: the cgroup itself under v2, the
// hierarchies' mounts under v1 (its cpu controller in cgroupDir/cpu). Tests point it elsewhere.
var cgroupDir = "/sys/fs/cgroup"

const schedMetric = "/sched/latencies:seconds"

// cpuMeter measures the writer's own CPU over its window: process CPU time against wall time
// and the cgroup's limit, the cgroup's throttling, and the Go scheduler's delay. These say
// whether the writer, rather than the cluster, was the limit.
type cpuMeter struct {
	now        func() time.Time
	start      time.Time
	cpu0       time.Duration
	periods0   int64
	throttled0 int64
	sched0     *metrics.Float64Histogram
}

func startCPU(now func() time.Time) *cpuMeter {
	m := &cpuMeter{now: now, start: now(), cpu0: processCPU(), sched0: schedHistogram()}
	m.periods0, m.throttled0 = throttling()
	return m
}

func (m *cpuMeter) stop() *summary.WriterCPU {
	wall := m.now().Sub(m.start)
	out := &summary.WriterCPU{Procs: int32(runtime.GOMAXPROCS(0))}
	if wall > 0 {
		out.UsedMillicores = int64(float64(processCPU()-m.cpu0) / float64(wall) * 1000)
	}
	out.LimitMillicores = cpuLimit()
	if p, th := throttling(); p > m.periods0 {
		out.Periods, out.ThrottledPeriods = p-m.periods0, th-m.throttled0
		out.ThrottledPercent = out.ThrottledPeriods * 100 / out.Periods
	}
	if h := schedHistogram(); h != nil && m.sched0 != nil {
		out.SchedP99Micros = int64(math.Round(quantileOfDelta(m.sched0, h, 0.99) * 1e6))
	}
	return out
}

// processCPU is the user and system time this process used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuLimit reads the cgroup's CPU quota as millicores; 0 when there is none. A pod on a
// cgroup v1 node has no cpu.max but cpu.cfs_quota_us over cpu.cfs_period_us: without them a
// writer held to its quota would be told to raise its concurrency.
func cpuLimit() int64 {
	if b, err := os.ReadFile(cgroupDir + "/cpu.max"); err == nil {
		return parseCPUMax(string(b))
	}
	quota, err1 := os.ReadFile(cgroupDir + "/cpu/cpu.cfs_quota_us")
	period, err2 := os.ReadFile(cgroupDir + "/cpu/cpu.cfs_period_us")
	if err1 != nil || err2 != nil {
		return 0
	}
	return parseCPUMax(strings.TrimSpace(string(quota)) + " " + strings.TrimSpace(string(period)))
}

// parseCPUMax reads "QUOTA PERIOD" ("max 100000" when unlimited, v1's quota -1) as
// millicores.
func parseCPUMax(s string) int64 {
	f := strings.Fields(s)
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	quota, err1 := strconv.ParseInt(f[0], 10, 64)
	period, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || quota <= 0 || period <= 0 {
		return 0
	}
	return quota * 1000 / period
}

// throttling reads the cgroup's scheduler periods and the periods it was throttled in, from
// cpu.stat (v2), else the cpu controller's cpu.stat (v1), which counts them alike.
func throttling() (periods, throttled int64) {
	b, err := os.ReadFile(cgroupDir + "/cpu.stat")
	if err != nil {
		if b, err = os.ReadFile(cgroupDir + "/cpu/cpu.stat"); err != nil {
			return 0, 0
		}
	}
	return parseCPUStat(string(b))
}

func parseCPUStat(s string) (periods, throttled int64) {
	periods, throttled, _ = nodeproc.ParseCPUStat(s)
	return periods, throttled
}

func schedHistogram() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	h := s[0].Value.Float64Histogram()
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// quantileOfDelta is the q-quantile of the observations added between two readings of a
// cumulative histogram, as the upper bound of the bucket it falls in.
func quantileOfDelta(before, after *metrics.Float64Histogram, q float64) float64 {
	if len(before.Counts) != len(after.Counts) {
		return 0
	}
	var total uint64
	for i := range after.Counts {
		total += after.Counts[i] - before.Counts[i]
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i := range after.Counts {
		seen += after.Counts[i] - before.Counts[i]
		if seen >= rank {
			upper := after.Buckets[i+1]
			if math.IsInf(upper, 1) {
				upper = after.Buckets[i]
			}
			return upper
		}
	}
	return 0
}
