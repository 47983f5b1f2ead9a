package results

import (
	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// maxMergedServerPoints bounds status.results.server.timeline.points (its MaxItems).
const maxMergedServerPoints = 48

// MergeServerTimeline puts the writers' server timelines on Cassandra's clock from origin (the
// client timeline's: the first writer's first send), in intervals of the coarsest writer's
// sampling interval: each writer's point goes to the interval its sample ended in, where the
// queues take the highest and the counts add. Samples before origin (a sampler starts just
// before its writer's first send) count in the first interval. It returns nil when no
// writer sent a timeline; hasOrigin false takes the earliest sampler's start.
func MergeServerTimeline(summaries []*summary.Summary, origin int64, hasOrigin bool) *cbv1.ServerTimeline {
	type end struct {
		at int64 // on Cassandra's clock
		p  summary.ServerPoint
	}
	var ends []end
	var interval, last int64
	own := !hasOrigin
	for _, s := range summaries {
		if s == nil || s.Server == nil || s.Server.Timeline == nil {
			continue
		}
		tl := s.Server.Timeline
		start := tl.FromMillis - s.OffsetMillis
		if own && (!hasOrigin || start < origin) {
			origin, hasOrigin = start, true
		}
		interval = max(interval, tl.IntervalMillis)
		for _, p := range tl.Points {
			ends = append(ends, end{start + p.AtMillis, p})
			last = max(last, start+p.AtMillis)
		}
	}
	if len(ends) == 0 {
		return nil
	}
	interval = max(interval, 1)
	for (last-origin)/interval+1 > maxMergedServerPoints {
		interval *= 2
	}
	byInterval := map[int64]*cbv1.ServerTimelinePoint{}
	for _, e := range ends {
		k := max(e.at-origin-1, 0) / interval
		pt := byInterval[k]
		if pt == nil {
			pt = &cbv1.ServerTimelinePoint{OffsetMillis: k * interval}
			byInterval[k] = pt
		}
		pt.PendingPeak = max(pt.PendingPeak, e.p.Pending)
		pt.Compactions += e.p.Compactions
		pt.Flushes += e.p.Flushes
		pt.GCPauses += e.p.GCPauses
		pt.GCMillis += e.p.GCMillis
		pt.HintsStored += e.p.HintsStored
		pt.HintsDelivered += e.p.HintsDelivered
	}
	out := &cbv1.ServerTimeline{IntervalMillis: interval}
	for k := int64(0); k <= max(last-origin-1, 0)/interval; k++ {
		if pt := byInterval[k]; pt != nil {
			out.Points = append(out.Points, *pt)
		}
	}
	return out
}
