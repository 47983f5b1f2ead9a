package writer

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/cassbench/cassbench/internal/sketch"
)

// Phases of a writer, as the cassbench_phase metric reports them.
const (
	phaseWaiting int32 = iota
	phaseWarmup
	phaseMeasuring
	phaseDone
	// phaseLoading is the load stage, before the start barrier of the window.
	phaseLoading
)

// state is what the load goroutines share with the observers (progress, metrics, budget).
type state struct {
	now      atomic.Pointer[phaseInfo]
	warm     phaseStats
	measured phaseStats
	// loading is the load stage's, set before the stage is entered.
	loading phaseStats
}

// phaseInfo changes as one value so that no observer sees a phase with another's start.
type phaseInfo struct {
	phase int32
	start time.Time
}

func (s *state) enter(phase int32, at time.Time) { s.now.Store(&phaseInfo{phase, at}) }

func (s *state) current() phaseInfo {
	if p := s.now.Load(); p != nil {
		return *p
	}
	return phaseInfo{phase: phaseWaiting}
}

func newState(goroutines int) *state {
	return &state{warm: newPhaseStats(goroutines), measured: newPhaseStats(goroutines)}
}

// totals adds up the measured window, and warm-up too when all is set.
func (s *state) totals(all bool) [numKinds]totals {
	var t [numKinds]totals
	if all {
		s.warm.addTo(&t)
	}
	s.measured.addTo(&t)
	return t
}

// progress prints a line like
//
//	writer 0/4 measuring 15s/60s ops=151234 ops/s=10082 p99=4.1ms errors=0 retries=2
//
// The rate is over the last interval; p99 is over the window so far.
type progress struct {
	out            io.Writer
	st             *state
	index, writers int32
	window         time.Duration // 0 when bounded by operations
	lastPhase      int32
	lastOps        int64
	lastAt         time.Time
	p99            sketch.Sketch
}

func (p *progress) print(now time.Time) {
	cur := p.st.current()
	phase, start := cur.phase, cur.start
	stats, name := p.st.measured, "measuring"
	switch phase {
	case phaseWaiting:
		fmt.Fprintf(p.out, "writer %d/%d waiting at the start barrier\n", p.index, p.writers)
		return
	case phaseWarmup:
		stats, name = p.st.warm, "warm-up"
	case phaseLoading:
		stats, name = p.st.loading, "loading"
	case phaseDone:
		return
	}
	var t [numKinds]totals
	stats.addTo(&t)
	p.p99.Reset()
	for i := range stats {
		for k := range stats[i] {
			stats[i][k].mergeResponse(&p.p99)
		}
	}
	ops, errs, retries := sumKinds(&t)
	if phase != p.lastPhase {
		p.lastOps, p.lastAt = 0, start
	}
	rate := 0.0
	if now.After(p.lastAt) {
		rate = float64(ops-p.lastOps) / now.Sub(p.lastAt).Seconds()
	}
	p.lastPhase, p.lastOps, p.lastAt = phase, ops, now
	elapsed := ""
	if phase == phaseMeasuring {
		e := now.Sub(start).Round(time.Second)
		elapsed = " " + e.String()
		if p.window > 0 {
			elapsed += "/" + p.window.String()
		}
	}
	p99 := time.Duration(p.p99.Quantile(0.99) * float64(time.Microsecond)).Round(10 * time.Microsecond)
	fmt.Fprintf(p.out, "writer %d/%d %s%s ops=%d ops/s=%.0f p99=%s errors=%d retries=%d\n",
		p.index, p.writers, name, elapsed, ops, rate, p99, errs, retries)
}
