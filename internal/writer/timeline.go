package writer

import (
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// timelineInterval is the first interval of a window of length d (0 when bounded by
// operations): whole seconds, so that at most summary.MaxPoints intervals, and a last
// partial one, cover it; an unbounded window starts at a second and doubles as it grows.
func timelineInterval(d time.Duration) time.Duration {
	per := d / (summary.MaxPoints - 2)
	return max(time.Second, per.Truncate(time.Second)+time.Second*time.Duration(min(1, per%time.Second)))
}

// sampler turns the measured window's cumulative statistics into timeline points: what
// completed since the previous point, the failures among them, and their p99 read off the
// difference of two snapshots of the merged response sketch.
type sampler struct {
	stats     phaseStats
	tl        summary.Timeline
	ops, errs int64
	prev, cur *sketch.Sketch
	// now is the writer's clock.
	now func() time.Time
}

func newSampler(stats phaseStats, interval time.Duration, now func() time.Time) *sampler {
	return &sampler{stats: stats, tl: summary.Timeline{IntervalMillis: interval.Milliseconds()}, prev: sketch.New(), cur: sketch.New(), now: now}
}

func (s *sampler) sample() {
	var t [numKinds]totals
	s.stats.addTo(&t)
	ops, errs, _ := sumKinds(&t)
	s.cur.Reset()
	for i := range s.stats {
		for _, st := range s.stats[i] {
			st.mergeResponse(s.cur)
		}
	}
	p99 := sketch.DiffQuantile(s.cur, s.prev, 0.99)
	// Points are kept at the first interval and halved once at the end: halving while
	// sampling would leave a half-filled point in the middle of the grid.
	s.tl.Points = append(s.tl.Points, summary.Point{Ops: ops - s.ops, Errors: errs - s.errs, P99: summary.QuantizeP99(p99)})
	s.ops, s.errs = ops, errs
	s.prev, s.cur = s.cur, s.prev
}

// run samples at every interval from start until stop is closed, then once more for the
// partial interval at the end, and returns the timeline.
func (s *sampler) run(start time.Time, stop <-chan struct{}) *summary.Timeline {
	interval := time.Duration(s.tl.IntervalMillis) * time.Millisecond
	next := start.Add(interval)
	t := time.NewTimer(next.Sub(s.now()))
	defer t.Stop()
	for {
		select {
		case <-stop:
			s.sample()
			s.tl.ShrinkTo(summary.MaxPoints)
			return &s.tl
		case <-t.C:
			s.sample()
			next = next.Add(interval)
			t.Reset(next.Sub(s.now()))
		}
	}
}
