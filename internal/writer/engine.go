package writer

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// operation is one load goroutine's way of doing an operation: bind generates the values of
// operation seq (and says which kind it is and how many value bytes a write carries); exec
// sends what was bound once and returns the value bytes and rows a read brought back.
type operation interface {
	bind(seq int64) (Kind, int)
	exec(Kind) (bytes, rows int, err error)
}

// detailer is an operation that tells more of its last execution than exec returns: the pages
// a scan fetched and whether a lightweight transaction applied.
type detailer interface {
	detail() (pages int, lwt lwtResult)
}

// phase is one stretch of load: warm-up or the measured window.
type phase struct {
	// Start is when the first operation is due; End, if set, when no new one may start.
	Start, End time.Time
	// Limit caps the operations issued; < 0 is no cap.
	Limit int64
	// Rate > 0 is an open loop at that many operations per second; 0 is a closed loop.
	Rate int64
	// Poisson draws the open loop's gaps from an exponential distribution seeded with Seed;
	// otherwise they are equal.
	Poisson bool
	Seed    uint64
	// Tick > 0 wakes an open loop once a tick for every operation then due (tickGate)
	// instead of once for each at its intended start.
	Tick time.Duration
}

// phaseResult is what a phase measured beyond the goroutines' statistics.
type phaseResult struct {
	// First and Last are the first send and the last completion; zero when nothing was sent.
	First, Last time.Time
	// Due, Missed and Backlog are an open loop's timetable: see summary.Schedule.
	Due, Missed, Backlog int64
}

// engine drives a fixed set of goroutines, each with its own operation and statistics.
type engine struct {
	ops     []operation
	retries int
	backoff Backoff
	// now is the writer's clock; time.Now when nil.
	now func() time.Time
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

// phaseStats are a phase's statistics, one per slot and kind; goroutine i records into slot
// i modulo the slots (see statSlots).
type phaseStats [][numKinds]*opStats

// statSlots is how many sets of statistics the goroutines of a phase share: two for each
// thread the runtime may run at once, not one per goroutine. Every operation adds to three
// sketches (response, service, schedule lag) whose buckets span microseconds to seconds, a
// few KiB each; one set per goroutine made 128 goroutines touch 384 of them in turn, and the
// cache misses of the bucket increments alone took 17% of the writer's CPU at 10,000 ops/s
// and 128 in flight (bench-writer's profile, docs/writer-efficiency.md). Counts and sketches
// merge exactly, so sharing them changes no figure; each slot keeps its own lock, and two
// slots a thread keep the goroutines of different threads from queueing on one.
func statSlots(goroutines int) int {
	return max(1, min(goroutines, 2*runtime.GOMAXPROCS(0)))
}

func newPhaseStats(goroutines int) phaseStats {
	ps := make(phaseStats, statSlots(goroutines))
	for i := range ps {
		for k := range ps[i] {
			ps[i][k] = &opStats{read: Kind(k).returnsRows()}
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
func (e *engine) run(p phase, stats phaseStats) phaseResult {
	now := e.now
	if now == nil {
		now = time.Now
	}
	var wg sync.WaitGroup
	var ticket atomic.Int64
	var tt *timetable
	if p.Rate > 0 {
		var rnd *rand.Rand
		if p.Poisson {
			rnd = rand.New(rand.NewPCG(p.Seed, uint64(p.Start.UnixNano())))
		}
		tt = newTimetable(p, len(e.ops), rnd)
	}
	var gate *tickGate
	if tt != nil && p.Tick > 0 {
		gate = newTickGate(p.Start, p.Tick, now)
		defer gate.stop()
	}
	spans := make([]span, len(e.ops))
	for i, op := range e.ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(i), uint64(p.Start.UnixNano())))
			if tt != nil {
				spans[i] = e.paced(p, tt, gate, op, stats[i%len(stats)], rnd, now)
			} else {
				spans[i] = e.closed(p, op, stats[i%len(stats)], &ticket, rnd, now)
			}
		}()
	}
	wg.Wait()
	var out phaseResult
	for _, s := range spans {
		if s.first.IsZero() {
			continue
		}
		if out.First.IsZero() || s.first.Before(out.First) {
			out.First = s.first
		}
		if s.last.After(out.Last) {
			out.Last = s.last
		}
	}
	if tt != nil {
		out.Backlog, out.Due = tt.finish()
		out.Missed = tt.missed
	}
	return out
}

// span is one goroutine's first send and last completion.
type span struct{ first, last time.Time }

func (s *span) sent(t time.Time) {
	if s.first.IsZero() {
		s.first = t
	}
}

// closed runs operations back to back until the phase ends.
func (e *engine) closed(p phase, op operation, stats [numKinds]*opStats, ticket *atomic.Int64, rnd *rand.Rand, now func() time.Time) span {
	var sp span
	var x sample
	for !e.stop.Load() {
		k := ticket.Add(1) - 1
		if p.Limit >= 0 && k >= p.Limit {
			return sp
		}
		send := now()
		if !p.End.IsZero() && !send.Before(p.End) {
			return sp
		}
		sp.sent(send)
		x = sample{}
		kind := e.do(op, &x, rnd)
		sp.last = now()
		x.response = sp.last.Sub(send)
		x.service = x.response
		stats[kind].record(&x)
	}
	return sp
}

// paced runs an open loop's operations at their intended starts, waking for each on time
// (see sleeper), or, when the phase has a gate, at the grid point the start falls due on
// (onGrid), until the timetable has none left.
func (e *engine) paced(p phase, tt *timetable, gate *tickGate, op operation, stats [numKinds]*opStats, rnd *rand.Rand, now func() time.Time) span {
	var sp span
	var x sample
	var wait func(time.Time)
	if gate != nil {
		w := newTickWaiter()
		wait = func(t time.Time) { gate.until(w, t) }
	} else {
		sl := newSleeper(now)
		defer sl.close()
		wait = sl.until
	}
	tenth := time.Second / time.Duration(10*p.Rate)
	for !e.stop.Load() {
		intended, ok := tt.take(now())
		if !ok {
			return sp
		}
		if gate != nil {
			intended = onGrid(p.Start, p.Tick, intended)
		}
		wait(intended)
		send := now()
		sp.sent(send)
		x = sample{paced: true, lag: send.Sub(intended)}
		x.lateTenth = x.lag > tenth
		kind := e.do(op, &x, rnd)
		sp.last = now()
		x.response, x.service = sp.last.Sub(intended), sp.last.Sub(send)
		stats[kind].record(&x)
	}
	return sp
}

// mayHaveApplied says whether a failed attempt may have changed data all the same: a timeout
// leaves it unknown, a refusal (unavailable, overloaded) means it never ran.
func mayHaveApplied(o Outcome) bool {
	return o == WriteTimeout || o == ReadTimeout || o == ClientTimeout
}

// do binds the next operation and attempts it, retrying what a busy cluster may accept a
// moment later; x gets the outcome, the attempts and what a read returned.
func (e *engine) do(op operation, x *sample, rnd *rand.Rand) Kind {
	kind, bytes := op.bind(e.seq.Add(1) - 1)
	x.bytes = bytes
	for try := 0; ; try++ {
		got, rows, err := op.exec(kind)
		o := Classify(err)
		if o == OK {
			x.outcome, x.retries = o, try
			if kind.returnsRows() {
				x.bytes, x.rows = got, rows
			}
			if d, ok := op.(detailer); ok {
				x.pages, x.lwt = d.detail()
			}
			return kind
		}
		if x.failed[o] < math.MaxUint16 {
			x.failed[o]++
		}
		if e.log != nil && !e.logged[o].Load() && e.logged[o].CompareAndSwap(false, true) {
			e.log(o, err)
		}
		if !o.Retryable() || try >= e.retries || e.stop.Load() || !kind.idempotent() && mayHaveApplied(o) {
			msg := err.Error()
			e.lastErr.Store(&msg)
			if o == Other {
				// An error that is not about load (no host reachable, a bad statement) comes
				// back at once; pausing keeps a writer from spinning through millions of them.
				time.Sleep(e.backoff.Delay(0, rnd))
			}
			x.outcome, x.retries = o, try
			return kind
		}
		time.Sleep(e.backoff.Delay(try, rnd))
	}
}
