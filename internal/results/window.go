package results

import (
	"math"

	"github.com/cassbench/cassbench/internal/summary"
)

// placed is a measuring writer's timeline set on Cassandra's clock: its first point starts
// at the writer's first send (start), its last ends at its last completion (end), in
// milliseconds.
type placed struct {
	index      int32
	start, end int64
	ok         int64 // successful operations in its window
	timeline   *summary.Timeline
}

func place(s *summary.Summary) placed {
	return placed{index: s.Index, start: s.Start - s.OffsetMillis, end: s.End - s.OffsetMillis, ok: ok(s), timeline: s.Timeline}
}

// span of point i of p's timeline, on Cassandra's clock; the last point ends at p.end.
//
// The writer's sampler runs on a grid from its window's start, and the point it takes when
// the window closes may begin after the last completion the writer recorded (its grid starts
// a little before its first send, which is where p.start places it). Those operations
// completed by p.end, so the last point is placed no later than p.end: left past it, it once
// made a merged point of its own, a sliver whose few operations read as a fall to 0 ops/s.
func (p placed) point(i int) (from, to int64) {
	iv := p.timeline.IntervalMillis
	from = p.start + int64(i)*iv
	to = from + iv
	if i == len(p.timeline.Points)-1 {
		from = min(from, p.end)
		to = max(from, min(to, p.end))
	}
	return from, to
}

// overlap is the share of [from, to) inside [start, end); a point of no length counts whole
// where it lies inside.
func overlap(from, to, start, end int64) float64 {
	if to <= from {
		if from >= start && from < end {
			return 1
		}
		return 0
	}
	lo, hi := max(from, start), min(to, end)
	if hi <= lo {
		return 0
	}
	return float64(hi-lo) / float64(to-from)
}

// inWindow counts p's successful completions inside [start, end): each timeline point in
// proportion to its overlap (completions inside a point are taken as spread evenly over it),
// and a writer without a timeline at its own average rate.
func (p placed) inWindow(start, end int64) float64 {
	if p.timeline == nil || p.timeline.IntervalMillis <= 0 || len(p.timeline.Points) == 0 {
		return float64(p.ok) * overlap(p.start, p.end, start, end)
	}
	var n float64
	for i, pt := range p.timeline.Points {
		from, to := p.point(i)
		n += float64(pt.Ops-pt.Errors) * overlap(from, to, start, end)
	}
	return n
}

// alignTimelines merges the writers' timelines on Cassandra's clock, from the first writer's
// first send to the last writer's last completion, at the coarsest of their intervals (doubled while there would be more than
// summary.MaxPoints points): each writer's point is shared among the merged points it
// overlaps, so writers that started apart, or whose intervals differ, still land where their
// operations happened. A merged point's p99 is the highest of the writers' p99s in it: an
// upper bound. It returns the merged timeline and its origin; writers without a timeline
// are left out and named in missing.
func alignTimelines(ps []placed) (merged *summary.Timeline, origin int64, missing []int32) {
	var interval int64
	first := true
	var end int64
	for _, p := range ps {
		if p.timeline == nil || p.timeline.IntervalMillis <= 0 || len(p.timeline.Points) == 0 {
			missing = append(missing, p.index)
			continue
		}
		interval = max(interval, p.timeline.IntervalMillis)
		if first || p.start < origin {
			origin = p.start
		}
		if first || p.end > end {
			end = p.end
		}
		first = false
	}
	if interval == 0 {
		return nil, 0, missing
	}
	for (end-origin+interval-1)/interval > summary.MaxPoints {
		interval *= 2
	}
	// A timeline that covers no time still has its one point.
	n := max(1, int((end-origin+interval-1)/interval))
	ops, errs := make([]float64, n), make([]float64, n)
	merged = &summary.Timeline{IntervalMillis: interval, Points: make([]summary.Point, n)}
	for _, p := range ps {
		if p.timeline == nil || p.timeline.IntervalMillis <= 0 {
			continue
		}
		for i, pt := range p.timeline.Points {
			from, to := p.point(i)
			for k := max(0, min(n-1, int((from-origin)/interval))); k < n; k++ {
				bs := origin + int64(k)*interval
				if bs >= max(to, from+1) {
					break
				}
				share := overlap(from, to, bs, bs+interval)
				if to == from && k == n-1 {
					// A point of no length at the timeline's very end belongs to its last point.
					share = 1
				}
				if share == 0 {
					continue
				}
				ops[k] += float64(pt.Ops) * share
				errs[k] += float64(pt.Errors) * share
				merged.Points[k].P99 = max(merged.Points[k].P99, pt.P99)
			}
		}
	}
	// Rounding the running sums keeps the merged totals those of the writers.
	var cumOps, cumErrs float64
	var sentOps, sentErrs int64
	for k := range merged.Points {
		cumOps += ops[k]
		cumErrs += errs[k]
		merged.Points[k].Ops = int64(math.Round(cumOps)) - sentOps
		merged.Points[k].Errors = int64(math.Round(cumErrs)) - sentErrs
		sentOps += merged.Points[k].Ops
		sentErrs += merged.Points[k].Errors
	}
	return merged, origin, missing
}
