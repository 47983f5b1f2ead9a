package writer_test

import (
	"math"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A fixed-rate run does what it was asked: the rate split over writers adds back up to the
// target, measured over the merged window.
func TestFixedRateReachesTarget(t *testing.T) {
	c := cluster(t)
	const rate = 1501 // odd, so the writers' shares differ
	s := spec("it_rate", func(b *builders.BenchmarkRunBuilder) {
		b.Writers(2).Rate(rate).Duration(3 * time.Second).Concurrency(64)
	})
	setUp(t, c, s)
	sums := mustRun(t, c, s)
	res := results.Merge(sums)
	got := float64(res.Operations) / (float64(res.WindowMillis) / 1000)
	if math.Abs(got-rate)/rate > 0.02 {
		t.Errorf("achieved %.0f ops/s over %d ms (%d operations), want %d within 2%%", got, res.WindowMillis, res.Operations, rate)
	}
	// The open loop's response latency includes any wait behind its schedule, so it is never
	// below the service latency.
	if res.Writes.Response.P99 < res.Writes.Service.P99 {
		t.Errorf("response p99 %d µs below service p99 %d µs", res.Writes.Response.P99, res.Writes.Service.P99)
	}
}
