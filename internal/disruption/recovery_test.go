package disruption

import (
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// timeline builds n intervals of iv ms at 100 operations and p99 base, then applies the
// overrides: p99 per interval, errors per interval, and intervals where nothing completed.
func timeline(iv int64, n int, base int64, p99 map[int]int64, errs map[int]int64, empty ...int) *cbv1.Timeline {
	tl := &cbv1.Timeline{IntervalMillis: iv}
	for i := range n {
		pt := cbv1.TimelinePoint{OffsetMillis: int64(i) * iv, Operations: 100, P99Micros: base, Errors: errs[i]}
		if v, ok := p99[i]; ok {
			pt.P99Micros = v
		}
		tl.Points = append(tl.Points, pt)
	}
	for _, i := range empty {
		tl.Points[i].Operations, tl.Points[i].P99Micros = 0, 0
	}
	return tl
}

// spike is a fault at 20 s..25 s: p99 5 ms in 20..24, 2 ms in 25..27; failures 3 at 21, 2
// at 24, 1 at 26 and 4 at 45.
var (
	spikeP99  = map[int]int64{20: 5000, 21: 5000, 22: 5000, 23: 5000, 24: 5000, 25: 2000, 26: 2000, 27: 2000}
	spikeErrs = map[int]int64{21: 3, 24: 2, 26: 1, 45: 4}
)

func TestFigures(t *testing.T) {
	s := time.Second
	cases := []struct {
		name      string
		tl        *cbv1.Timeline
		spread    time.Duration
		objective int64
		obs       Observed
		want      cbv1.DisruptionResult
	}{{
		// The last window holding a 2 ms interval ends at 31; 32..41 are the stable stretch,
		// so the p99 recovered at the end of 32 (33 s), 8 s after the fault's end.
		name: "recovered", tl: timeline(1000, 50, 1000, spikeP99, spikeErrs), objective: 3000,
		obs: Observed{Name: "f", Start: 20 * s, End: 25 * s},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 20000, EndMillis: 25000, Errors: 5, ErrorsAfter: 1,
			BaselineP99Micros: 1000, PeakP99Micros: 5000, ObjectiveP99Micros: 3000, OverObjectiveMillis: 5000,
			Recovered: true, RecoveryMillis: 8000},
	}, {
		// The same timeline seen from a window that began 500 ms after the first send.
		name: "start spread", tl: timeline(1000, 50, 1000, spikeP99, spikeErrs), spread: 500 * time.Millisecond,
		obs: Observed{Name: "f", Start: 19*s + 500*time.Millisecond, End: 24*s + 500*time.Millisecond},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 19500, EndMillis: 24500, Errors: 5, ErrorsAfter: 1,
			BaselineP99Micros: 1000, PeakP99Micros: 5000, Recovered: true, RecoveryMillis: 8000},
	}, {
		// Only 32..39 are left after the last bad window: 8 s, not the 10 s asked for.
		name: "not recovered in the timeline", tl: timeline(1000, 40, 1000, spikeP99, spikeErrs), objective: 1500,
		obs: Observed{Name: "f", Start: 20 * s, End: 25 * s},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 20000, EndMillis: 25000, Errors: 5, ErrorsAfter: 1,
			BaselineP99Micros: 1000, PeakP99Micros: 5000, ObjectiveP99Micros: 1500, OverObjectiveMillis: 8000},
	}, {
		// 1.1 ms is within 10% of 1 ms: the fault never left the band, and the first window
		// after it counts.
		name: "within tolerance", tl: timeline(1000, 30, 1000, map[int]int64{10: 1100}, nil),
		obs: Observed{Name: "f", Start: 10 * s, End: 10*s + 300*time.Millisecond},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 10000, EndMillis: 10300, BaselineP99Micros: 1000,
			PeakP99Micros: 1100, Recovered: true, RecoveryMillis: 700},
	}, {
		// Nothing completed in 25..29: a stall is no recovery, and the windows ending at 30..33
		// still hold 29, so the stretch starts at 34 and ends at 35 s, 10 s after the fault.
		name: "stall", tl: timeline(1000, 50, 1000, nil, nil, 25, 26, 27, 28, 29),
		obs: Observed{Name: "f", Start: 20 * s, End: 25 * s},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 20000, EndMillis: 25000, BaselineP99Micros: 1000,
			PeakP99Micros: 1000, Recovered: true, RecoveryMillis: 10000},
	}, {
		name: "no interval before the fault", tl: timeline(1000, 30, 1000, nil, map[int]int64{0: 7}),
		obs:  Observed{Name: "f", Start: 0, End: 2 * s},
		want: cbv1.DisruptionResult{Name: "f", EndMillis: 2000, Errors: 7, PeakP99Micros: 1000},
	}, {
		// 2 s intervals: the moving window is 3 intervals, the stable stretch 5. The bad
		// intervals are 10 and 11; the windows ending at 12 and 13 still hold 11, so the
		// stretch is 14..18 and the recovery ends at 30 s, 6 s after the fault's end.
		name: "2 s intervals", tl: timeline(2000, 20, 1000, map[int]int64{10: 4000, 11: 4000}, map[int]int64{11: 2, 12: 1}), objective: 2000,
		obs: Observed{Name: "f", Start: 20 * s, End: 24 * s},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 20000, EndMillis: 24000, Errors: 2, ErrorsAfter: 1,
			BaselineP99Micros: 1000, PeakP99Micros: 4000, ObjectiveP99Micros: 2000, OverObjectiveMillis: 4000,
			Recovered: true, RecoveryMillis: 6000},
	}, {
		// A fault made before the timeline began (in Kubernetes the controller times faults
		// from an estimate of the window's start) counts from the first interval.
		name: "before the timeline", tl: timeline(1000, 30, 1000, map[int]int64{0: 3000, 1: 3000}, map[int]int64{0: 4, 1: 1}),
		obs:  Observed{Name: "f", Start: -3 * s, End: 1500 * time.Millisecond},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: -3000, EndMillis: 1500, Errors: 5, PeakP99Micros: 3000},
	}, {
		name: "no timeline", obs: Observed{Name: "f", Start: s, End: 2 * s},
		want: cbv1.DisruptionResult{Name: "f", StartMillis: 1000, EndMillis: 2000},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Figures(c.tl, nil, c.spread, c.objective, []Observed{c.obs})
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestHintsAroundEachFault puts each server interval's hints on the fault whose span (its
// start until the next fault's) the interval overlaps: a stop-node's hints stored while it
// was down and delivered once it was back count for it, a later flush's for the flush.
func TestHintsAroundEachFault(t *testing.T) {
	s := time.Second
	server := &cbv1.ServerTimeline{IntervalMillis: 5000, Points: []cbv1.ServerTimelinePoint{
		{OffsetMillis: 0, HintsStored: 1000}, // ends as the first fault starts: before it
		{OffsetMillis: 10000, HintsStored: 800},
		{OffsetMillis: 15000, HintsStored: 200, HintsDelivered: 1500},
		{OffsetMillis: 30000, HintsDelivered: 500},
		{OffsetMillis: 40000, HintsStored: 7, HintsDelivered: 3},
	}}
	obs := []Observed{{Name: "stop-node 2 at 4s; start-node 2 at 14s", Start: 4 * s, End: 14 * s}, {Name: "flush 1 at 39s", Start: 39 * s, End: 40 * s}}
	got := Figures(timeline(1000, 50, 1000, nil, nil), server, time.Second, 0, obs)
	if got[0].HintsStored != 1000 || got[0].HintsDelivered != 2000 {
		t.Errorf("stop-node: %d stored, %d delivered; want 1000 and 2000", got[0].HintsStored, got[0].HintsDelivered)
	}
	if got[1].HintsStored != 7 || got[1].HintsDelivered != 3 {
		t.Errorf("flush: %d stored, %d delivered; want 7 and 3", got[1].HintsStored, got[1].HintsDelivered)
	}
	if none := Figures(timeline(1000, 50, 1000, nil, nil), nil, 0, 0, obs[:1]); none[0].HintsStored != 0 || none[0].HintsDelivered != 0 {
		t.Errorf("without a server timeline: %+v", none[0])
	}
}
