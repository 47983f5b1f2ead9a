package report

import (
	"math"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// stretch is one interval of a run's timeline as every view draws it (the page's charts,
// the --plot files and the terminal's sparklines), in seconds from the timeline's origin.
type stretch struct {
	from, to     float64
	opsPerSecond float64
	p99Millis    float64
}

func (s stretch) middle() float64 { return (s.from + s.to) / 2 }

// stretches reads a timeline for drawing. Every interval covers its own time: the last one
// ends where the timeline does (the window and the drain of its last operations), not at
// the next interval boundary, and its rate is its operations over that time, as status gives
// it. A last interval shorter than half an interval is drawn joined to the one before it:
// its few operations, the drain of those in flight at the window's end, are a rate over too
// short a time to set beside the others, where they read as a spike or a fall. end is where
// the timeline ends, in seconds.
func stretches(tl *cbv1.Timeline) (out []stretch, end float64) {
	if tl == nil || len(tl.Points) == 0 {
		return nil, 0
	}
	iv := max(tl.IntervalMillis, 1)
	ops := make([]float64, 0, len(tl.Points))
	for i, p := range tl.Points {
		covered := iv
		if i == len(tl.Points)-1 {
			covered = lastCovered(p, iv)
		}
		out = append(out, stretch{from: float64(p.OffsetMillis) / 1000, to: float64(p.OffsetMillis+covered) / 1000,
			opsPerSecond: float64(p.OpsPerSecond), p99Millis: ms(p.P99Micros)})
		ops = append(ops, float64(p.Operations))
	}
	if n := len(out); n > 1 && (out[n-1].to-out[n-1].from)*1000 < float64(iv)/2 {
		last, prev := out[n-1], &out[n-2]
		prev.opsPerSecond = (ops[n-2] + ops[n-1]) * 1000 / math.Round((last.to-prev.from)*1000)
		prev.to, prev.p99Millis = last.to, max(prev.p99Millis, last.p99Millis)
		out = out[:n-1]
	}
	return out, out[len(out)-1].to
}

// lastCovered is the time, in milliseconds, the last point of a timeline covers: status
// gives its operations and their rate over that time, so it is their quotient, to the
// millisecond; a point with no operations is taken to cover the whole interval.
func lastCovered(p cbv1.TimelinePoint, iv int64) int64 {
	if p.Operations <= 0 || p.OpsPerSecond <= 0 {
		return iv
	}
	return max(1, min(iv, int64(math.Round(float64(p.Operations)*1000/float64(p.OpsPerSecond)))))
}
