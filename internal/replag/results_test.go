package replag

import (
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
)

// What an observer saw reaches the run's results with its counts, percentiles and bound.
func TestResultsKeepWhatTheObserverSaw(t *testing.T) {
	lag := sketch.New()
	for _, us := range []float64{800, 1200, 1500, 2500, 40_000} {
		lag.Add(us)
	}
	r := Result{Seen: 5, Censored: 2, Dropped: 1, ReadErrors: 3, Lag: lag, MaxGapMicros: 10_000, ClockErrorMicros: 700}
	got := r.Results("dc2", 0.05, 3*time.Second)
	if got.ObservedDatacenter != "dc2" || got.SampleShare != "0.05" || got.LimitMillis != 3000 ||
		got.Seen != 5 || got.Censored != 2 || got.Dropped != 1 || got.ReadErrors != 3 {
		t.Errorf("counts: %+v", got)
	}
	if got.Lag == nil || got.Lag.Max != 40_000 || got.Lag.P50 < 1400 || got.Lag.P50 > 1600 {
		t.Errorf("lag %+v: want max 40000 µs and p50 near 1500 µs", got.Lag)
	}
	if got.BoundMicros != 10_700 || got.ClockErrorMicros != 700 {
		t.Errorf("bound %d, clock error %d: want 10700 and 700", got.BoundMicros, got.ClockErrorMicros)
	}
	none := Result{Censored: 4}.Results("dc2", 1, time.Second)
	if none.Lag != nil || none.BoundMicros != 0 || none.Censored != 4 {
		t.Errorf("no key seen: %+v; want no lag and no bound, the censored keys counted", none)
	}
}
