package disruption

import (
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// The recovery rule: the p99 over a moving window of windowLength, stepped each interval,
// is back within tolerance of the p99 before the fault and stays there for stableFor.
const (
	windowLength = 5 * time.Second
	stableFor    = 10 * time.Second
	tolerance    = 1.10
)

// Observed is a disruption as it happened: its start and end from the measured window's
// start, as the run measured them.
type Observed struct {
	Name       string
	Node       int
	Start, End time.Duration
}

// Figures computes the recovery figures of each disruption from the run's merged timeline.
// The timeline's origin is the first writer's first send, startSpread before the measured
// window's start. objectiveP99Micros is the p99 limit (0 for none).
//
// The timeline holds, per interval, the operations, the failures and the highest p99 any
// writer had (an upper bound on the interval's p99, quantized to about 5%); it holds no
// sketch per interval, so the p99 over a moving window is taken as the highest interval p99
// in it, again an upper bound, and timeouts are not told apart from other failures.
//
// server is the server evidence's timeline on the same origin (nil when the nodes were not
// sampled): each fault's hints are those stored and delivered from its start until the next
// fault's start (faults are in time order), so that the hints a stopped node's replicas kept
// for it and replayed once it was back both count for it.
func Figures(tl *cbv1.Timeline, server *cbv1.ServerTimeline, startSpread time.Duration, objectiveP99Micros int64, obs []Observed) []cbv1.DisruptionResult {
	out := make([]cbv1.DisruptionResult, 0, len(obs))
	for i, o := range obs {
		r := figure(tl, startSpread, objectiveP99Micros, o)
		until := time.Duration(-1)
		if i+1 < len(obs) {
			until = obs[i+1].Start + startSpread
		}
		r.HintsStored, r.HintsDelivered = hints(server, o.Start+startSpread, until)
		out = append(out, r)
	}
	return out
}

// hints sums the server timeline's hints over the intervals that end after from and begin
// before until (-1: the timeline's end). A point counts what happened since the sample
// before it, which ended in the interval before.
func hints(server *cbv1.ServerTimeline, from, until time.Duration) (stored, delivered int64) {
	if server == nil {
		return 0, 0
	}
	for _, p := range server.Points {
		start := time.Duration(p.OffsetMillis) * time.Millisecond
		end := start + time.Duration(server.IntervalMillis)*time.Millisecond
		if end <= from || (until >= 0 && start >= until) {
			continue
		}
		stored += p.HintsStored
		delivered += p.HintsDelivered
	}
	return stored, delivered
}

func figure(tl *cbv1.Timeline, startSpread time.Duration, objective int64, o Observed) cbv1.DisruptionResult {
	r := cbv1.DisruptionResult{Name: o.Name, StartMillis: o.Start.Milliseconds(), EndMillis: o.End.Milliseconds(), ObjectiveP99Micros: objective}
	if tl == nil || tl.IntervalMillis <= 0 || len(tl.Points) == 0 {
		return r
	}
	iv := tl.IntervalMillis
	n := int64(len(tl.Points))
	// The interval the fault began in: the first when it began before the timeline (a fault
	// in Kubernetes is timed from an estimate of the window's start, and may come early).
	first := min(n-1, max(0, (o.Start+startSpread).Milliseconds()/iv))
	// The interval the fault ended in; a fault ending on an interval's start did not reach it.
	last := min(n-1, max(first, ((o.End+startSpread).Milliseconds()-1)/iv))
	w := ceilDiv(windowLength.Milliseconds(), iv)
	m := ceilDiv(stableFor.Milliseconds(), iv)

	for i := first; i <= last; i++ {
		r.Errors += tl.Points[i].Errors
	}
	if first > 0 {
		r.BaselineP99Micros = windowP99(tl, first-1, w)
	}
	k0, ok := recoveredAt(tl, last, w, m, r.BaselineP99Micros)
	until := n - 1
	if ok {
		r.Recovered = true
		r.RecoveryMillis = max(0, (k0+1)*iv-(o.End+startSpread).Milliseconds())
		until = k0
	}
	for i := last + 1; i <= until; i++ {
		r.ErrorsAfter += tl.Points[i].Errors
	}
	for i := first; i <= until; i++ {
		p := tl.Points[i].P99Micros
		r.PeakP99Micros = max(r.PeakP99Micros, p)
		if objective > 0 && p > objective {
			r.OverObjectiveMillis += iv
		}
	}
	return r
}

// recoveredAt is the first interval k0 at or after from whose moving window, and the m-1
// after it, have a p99 within tolerance of baseline and no stall; false when there is no baseline or no
// such stretch fits in the timeline.
func recoveredAt(tl *cbv1.Timeline, from, w, m, baseline int64) (int64, bool) {
	if baseline <= 0 {
		return 0, false
	}
	limit := float64(baseline) * tolerance
	run := int64(0)
	for k := from; k < int64(len(tl.Points)); k++ {
		// A window with an interval in which nothing completed holds a stall, not a recovery.
		if p := windowP99(tl, k, w); !stalled(tl, k, w) && float64(p) <= limit {
			run++
		} else {
			run = 0
		}
		if run == m {
			return k - m + 1, true
		}
	}
	return 0, false
}

// windowP99 is the highest p99 of the w intervals ending at k (fewer at the timeline's
// start), skipping intervals in which nothing completed.
func windowP99(tl *cbv1.Timeline, k, w int64) int64 {
	var p int64
	for i := max(0, k-w+1); i <= k; i++ {
		if tl.Points[i].Operations > 0 {
			p = max(p, tl.Points[i].P99Micros)
		}
	}
	return p
}

func ceilDiv(a, b int64) int64 { return max(1, (a+b-1)/b) }

// stalled says whether nothing completed in one of the w intervals ending at k.
func stalled(tl *cbv1.Timeline, k, w int64) bool {
	for i := max(0, k-w+1); i <= k; i++ {
		if tl.Points[i].Operations == 0 {
			return true
		}
	}
	return false
}
