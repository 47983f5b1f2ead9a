package results

import (
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// The observers of several writers make one result: counts add up, the sketches merge (the
// percentiles are of every seen key), and the bound is the widest any observer states.
func TestReplicationLagMergesEveryWritersObserver(t *testing.T) {
	lagOf := func(us ...float64) *sketch.Sketch {
		s := sketch.New()
		for _, v := range us {
			s.Add(v)
		}
		return s
	}
	sums := []*summary.Summary{
		{Index: 0, Replag: &summary.Replag{Datacenter: "dc2", Seen: 3, Censored: 1, ReadErrors: 2, MaxGapMicros: 10_000, ClockErrorMicros: 300, Lag: lagOf(1000, 1000, 1000)}},
		{Index: 1}, // a writer in the observed datacenter itself observes nothing
		nil,
		{Index: 2, Replag: &summary.Replag{Datacenter: "dc2", Seen: 2, Dropped: 4, MaxGapMicros: 2_000, ClockErrorMicros: 900, Lag: lagOf(50_000, 50_000)}},
	}
	got := ReplicationLag(sums, 0.01, 30*time.Second)
	if got == nil {
		t.Fatal("no result from two observers")
	}
	if got.ObservedDatacenter != "dc2" || got.SampleShare != "0.01" || got.LimitMillis != 30_000 ||
		got.Seen != 5 || got.Censored != 1 || got.Dropped != 4 || got.ReadErrors != 2 {
		t.Errorf("counts %+v", got)
	}
	if got.Lag == nil || got.Lag.Max != 50_000 || got.Lag.P50 > 1100 {
		t.Errorf("lag %+v: want max 50000 µs and the median of the 3 keys at 1000 µs", got.Lag)
	}
	if got.BoundMicros != 10_900 || got.ClockErrorMicros != 900 {
		t.Errorf("bound %d, clock error %d: want 10900 (the widest gap and clock error) and 900", got.BoundMicros, got.ClockErrorMicros)
	}
	if none := ReplicationLag([]*summary.Summary{{Index: 0}}, 0.01, time.Second); none != nil {
		t.Errorf("no observer, result %+v; want nil", none)
	}
}
