package writer

import (
	"sort"
	"testing"
	"time"
)

// BenchmarkPacer compares how late an idle writer wakes for an operation due every 2 ms
// (500 ops/s) with the timerfd sleeper and with time.Sleep, side by side: the figures are
// the p50 and p99 lateness of each, in microseconds.
func BenchmarkPacer(b *testing.B) {
	for _, c := range []struct {
		name  string
		sleep func(time.Time)
	}{
		{"timerfd", newSleeper(time.Now).until},
		{"time.Sleep", func(t time.Time) { time.Sleep(time.Until(t)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lags []time.Duration
			next := time.Now()
			for b.Loop() {
				next = next.Add(2 * time.Millisecond)
				c.sleep(next)
				lags = append(lags, time.Since(next))
			}
			sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
			b.ReportMetric(float64(lags[len(lags)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds()), "p99-µs")
		})
	}
}
