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

// PartP99s is the p99 of each part, every writer's summaries of it merged: the samples
// Spread judges a step's precision by. A part nobody reported is left out.
func PartP99s(parts [][]*summary.Summary) []time.Duration {
	var out []time.Duration
	for _, sums := range parts {
		if f := FiguresOf(sums); f.Operations > 0 {
			out = append(out, f.P99)
		}
	}
	return out
}
