package writer

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// operation is one load goroutine's way of doing an operation: bind generates the values of
// operation seq (and says which kind it is and how many value bytes a write carries); exec
// sends what was bound once and returns the value bytes a read brought back.
type operation interface {
	bind(seq int64) (Kind, int)
	exec(Kind) (int, error)
}

// phase is one stretch of load: warm-up or the measured window.
type phase struct {
	// Start is when the first operation is due; End, if set, when no new one may start.
	Start, End time.Time
	// Limit caps the operations issued; < 0 is no cap.
	Limit int64
	// Rate > 0 is an open loop at that many operations per second; 0 is a closed loop.
	Rate int64
}

// engine drives a fixed set of goroutines, each with its own operation and statistics.
type engine struct {
	ops     []operation
	retries int
	backoff Backoff
	// seq numbers operations across phases so warm-up and window never reuse rows.
	seq  atomic.Int64
	stop atomic.Bool
	// lastErr keeps one failure's text for the summary of an aborted run.
	lastErr atomic.Pointer[string]
	// log gets the first error of each outcome, so a run that fails has its reason on record
	// without logging every failure.
	log    func(Outcome, error)
	logged [numOutcomes]atomic.Bool
}

// phaseStats are a phase's statistics, one per goroutine and kind.
type phaseStats [][numKinds]*opStats

func newPhaseStats(goroutines int) phaseStats {
	ps := make(phaseStats, goroutines)
	for i := range ps {
		for k := range ps[i] {
			ps[i][k] = &opStats{}
		}
	}
	return ps
}

func (ps phaseStats) kind(k Kind) []*opStats {
	out := make([]*opStats, len(ps))
	for i := range ps {
		out[i] = ps[i][k]
	}
	return out
}

func (ps phaseStats) addTo(t *[numKinds]totals) {
	for i := range ps {
		for k := range ps[i] {
			ps[i][k].addTo(&t[k])
		}
	}
}

// run drives one phase to its end and returns when every operation it started is done.
func (e *engine) run(p phase, stats phaseStats) {
	var wg sync.WaitGroup
	var ticket atomic.Int64
	for i, op := range e.ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.loop(p, op, stats[i], &ticket, rand.New(rand.NewPCG(uint64(i), uint64(p.Start.UnixNano()))))
		}()
	}
	wg.Wait()
}

func (e *engine) loop(p phase, op operation, stats [numKinds]*opStats, ticket *atomic.Int64, rnd *rand.Rand) {
	sched := Schedule{Start: p.Start, Rate: p.Rate}
	for !e.stop.Load() {
		k := ticket.Add(1) - 1
		if p.Limit >= 0 && k >= p.Limit {
			return
		}
		var intended, send time.Time
		if p.Rate > 0 {
			intended = sched.At(k)
			if !p.End.IsZero() && !intended.Before(p.End) {
				return
			}
			if d := time.Until(intended); d > 0 {
				time.Sleep(d)
			}
			send = time.Now()
		} else {
			send = time.Now()
			if !p.End.IsZero() && !send.Before(p.End) {
				return
			}
			intended = send
		}
		kind, bytes := op.bind(e.seq.Add(1) - 1)
		outcome, retries, got := e.attempt(op, kind, rnd)
		done := time.Now()
		if kind == Read {
			bytes = got
		}
		stats[kind].record(outcome, retries, bytes, done.Sub(intended), done.Sub(send))
	}
}

// attempt sends a bound operation, retrying what a busy cluster may accept a moment later,
// and reports the final outcome and the retries it took.
func (e *engine) attempt(op operation, kind Kind, rnd *rand.Rand) (Outcome, int, int) {
	for try := 0; ; try++ {
		got, err := op.exec(kind)
		o := Classify(err)
		if o == OK {
			return o, try, got
		}
		if e.log != nil && !e.logged[o].Load() && e.logged[o].CompareAndSwap(false, true) {
			e.log(o, err)
		}
		if !o.Retryable() || try >= e.retries || e.stop.Load() {
			msg := err.Error()
			e.lastErr.Store(&msg)
			if o == Other {
				// An error that is not about load (no host reachable, a bad statement) comes
				// back at once; pausing keeps a writer from spinning through millions of them.
				time.Sleep(e.backoff.Delay(0, rnd))
			}
			return o, try, 0
		}
		time.Sleep(e.backoff.Delay(try, rnd))
	}
}
