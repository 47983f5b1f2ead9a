package capacity

import (
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// FiguresOf adds up writers' summaries of one step (any number of parts and rounds): the
// counts summed, the percentiles from the merged response sketches of every operation, as
// the results of a run are.
func FiguresOf(sums []*summary.Summary) Figures {
	var f Figures
	merged := sketch.New()
	for _, s := range sums {
		if s == nil {
			continue
		}
		for _, o := range s.AllOps() {
			f.Operations += o.OK + o.WriteTimeout + o.ReadTimeout + o.Unavailable + o.Overloaded + o.ClientTimeout + o.Other
			f.Timeouts += o.WriteTimeout + o.ReadTimeout + o.ClientTimeout
			if o.Response != nil {
				merged.Merge(o.Response)
			}
		}
		if s.Schedule != nil {
			f.Due += s.Schedule.Due
			f.Missed += s.Schedule.Missed
		}
	}
	if merged.Count() > 0 {
		f.P99 = micros(merged.Quantile(0.99))
		f.P999 = micros(merged.Quantile(0.999))
	}
	return f
}

func micros(us float64) time.Duration { return time.Duration(us * float64(time.Microsecond)) }

// PartP99s is the p99 of each part of a round, from the writers' cumulative sketches at the
// end of each part (cumulative[p] holds one per writer): every writer's sketches merged, and
// each part the difference from the one before. A part nobody reported, or in which nothing
// completed, is left out.
func PartP99s(cumulative [][]*sketch.Sketch) []time.Duration {
	var out []time.Duration
	prev := sketch.New()
	for _, sks := range cumulative {
		if len(sks) == 0 {
			continue
		}
		cur := sketch.New()
		for _, sk := range sks {
			cur.Merge(sk)
		}
		if cur.Count() > prev.Count() {
			out = append(out, micros(sketch.DiffQuantile(cur, prev, 0.99)))
		}
		prev = cur
	}
	return out
}
