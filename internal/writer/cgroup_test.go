package writer

import (
	"runtime/metrics"
	"testing"
)

func TestParseCPUMax(t *testing.T) {
	tests := map[string]int64{"max 100000": 0, "200000 100000": 2000, "50000 100000\n": 500, "": 0, "x 1": 0}
	for in, want := range tests {
		if got := parseCPUMax(in); got != want {
			t.Errorf("parseCPUMax(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestParseCPUStat(t *testing.T) {
	p, th := parseCPUStat("usage_usec 123\nnr_periods 400\nnr_throttled 100\nthrottled_usec 9\n")
	if p != 400 || th != 100 {
		t.Errorf("periods %d, throttled %d", p, th)
	}
}

func TestQuantileOfDelta(t *testing.T) {
	buckets := []float64{0, 0.001, 0.01, 0.1}
	before := &metrics.Float64Histogram{Counts: []uint64{5, 0, 0}, Buckets: buckets}
	after := &metrics.Float64Histogram{Counts: []uint64{100, 5, 1}, Buckets: buckets}
	// 95 + 5 + 1 new observations: the 99th of 101 is in the second bucket.
	if got := quantileOfDelta(before, after, 0.99); got != 0.01 {
		t.Errorf("p99 = %v, want 0.01", got)
	}
	if got := quantileOfDelta(after, after, 0.99); got != 0 {
		t.Errorf("p99 of nothing = %v", got)
	}
}
