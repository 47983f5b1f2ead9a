package writer

import (
	"container/heap"
	"sync"
	"time"
)

// tickGate paces an open loop on a grid (writers.pacingTick) instead of each operation's own
// wake-up: one goroutine wakes once a tick, on the phase's start plus whole ticks, and lets
// through every operation due by then. The schedule itself is on the grid (see onGrid): the
// operations the rate asks for within one tick are all due at its end, and leave together;
// on a batched connection they share one write(2), which a client pays for per call: on a
// loopback socket a write that carries one insert costs the writer some 12 µs (bench-writer's
// profile at 10,000 ops/s), as much as the rest of the operation. latte paces this way on
// tokio's millisecond timer. What it changes is the arrival pattern the node sees, a burst
// of rate × tick operations each tick instead of one every 1/rate; the schedule lag stays
// the writer's delay past each burst's due time, and every latency is measured from it.
type tickGate struct {
	mu sync.Mutex
	// passed is the time of the last tick.
	passed time.Time
	// waiting holds the goroutines whose operations are not due yet, earliest first: a tick
	// wakes only those it lets through, not every goroutine holding a later operation.
	waiting waiters
	// dozing is true while the gate sleeps on the runtime's timer because nothing waiting is
	// due within idleMargin of the next tick (see run); kick then wakes it for a waiter due
	// earlier than what it sleeps for.
	dozing bool
	doze   time.Time // the earliest due the dozing gate sleeps for; zero with nobody waiting
	kick   chan struct{}
	// ticks counts the ticks made, for the tests.
	ticks int
	done  chan struct{}
	once  sync.Once
}

// tickWaiter is one goroutine's place in the gate, kept for the whole phase.
type tickWaiter struct {
	due time.Time
	// woken receives the time of the tick that let it through.
	woken chan time.Time
}

func newTickWaiter() *tickWaiter { return &tickWaiter{woken: make(chan time.Time, 1)} }

// waiters is a min-heap by due time.
type waiters []*tickWaiter

func (w waiters) Len() int           { return len(w) }
func (w waiters) Less(i, j int) bool { return w[i].due.Before(w[j].due) }
func (w waiters) Swap(i, j int)      { w[i], w[j] = w[j], w[i] }
func (w *waiters) Push(x any)        { *w = append(*w, x.(*tickWaiter)) }
func (w *waiters) Pop() any {
	old := *w
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*w = old[:len(old)-1]
	return x
}

// onGrid is an operation's intended start on a phase paced every tick from start: the first
// grid point at or after the timetable's start for it.
func onGrid(start time.Time, tick time.Duration, t time.Time) time.Time {
	d := t.Sub(start)
	if d <= 0 {
		return start
	}
	return start.Add((d + tick - 1) / tick * tick)
}

// newTickGate starts ticking every tick from start, on now's clock, until stop.
func newTickGate(start time.Time, tick time.Duration, now func() time.Time) *tickGate {
	g := &tickGate{done: make(chan struct{}), kick: make(chan struct{}, 1)}
	go g.run(start, tick, now)
	return g
}

// idleMargin is how far ahead of the next tick the earliest waiting operation must be due for
// the gate to stop ticking until shortly before it: two ticks, and at least 2 ms, which the
// runtime's timer (woken in whole milliseconds when the process is idle) keeps to.
func idleMargin(tick time.Duration) time.Duration { return max(2*tick, 2*time.Millisecond) }

// run ticks on the grid while an operation is due within idleMargin of the next tick. Below
// about one operation a tick that left most ticks with nothing to let through, each a wake-up
// of the process (at 10 ops/s with a 1 ms tick, 0.23 CPU-seconds in 10 s against latte's 0.04,
// docs/writer-efficiency.md); the gate then dozes on the runtime's timer until idleMargin
// before the earliest due operation, and ticks on its own timer from there, so the tick that
// lets the operation through is as precise as before. At rates of an operation a tick and
// more the gate never dozes.
func (g *tickGate) run(start time.Time, tick time.Duration, now func() time.Time) {
	sl := newSleeper(now)
	defer sl.close()
	margin := idleMargin(tick)
	var timer *time.Timer
	for {
		// The next grid point after now: ticks missed while the process was descheduled are
		// not made up one by one, a single tick lets everything due through.
		t := now()
		next := start
		if d := t.Sub(start); d >= 0 {
			next = start.Add((d/tick + 1) * tick)
		}
		g.mu.Lock()
		g.dozing = len(g.waiting) == 0 || g.waiting[0].due.Sub(next) > margin
		g.doze = time.Time{}
		if g.dozing && len(g.waiting) > 0 {
			g.doze = g.waiting[0].due
		}
		dozing, doze := g.dozing, g.doze
		g.mu.Unlock()
		if dozing {
			var wake <-chan time.Time
			if !doze.IsZero() {
				if timer == nil {
					timer = time.NewTimer(doze.Sub(t) - margin)
				} else {
					timer.Reset(doze.Sub(t) - margin)
				}
				wake = timer.C
			}
			select {
			case <-wake:
			case <-g.kick:
			case <-g.done:
				return
			}
			if timer != nil {
				timer.Stop()
			}
			continue
		}
		sl.until(next)
		select {
		case <-g.done:
			return
		default:
		}
		g.tick(now())
	}
}

// tick lets through every waiter due at or before t.
func (g *tickGate) tick(t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.passed = t
	g.ticks++
	for len(g.waiting) > 0 && !g.waiting[0].due.After(t) {
		heap.Pop(&g.waiting).(*tickWaiter).woken <- t
	}
}

// until returns once a tick at or after t has passed, with that tick's time, or once the
// gate has stopped (with the last tick's). w is the calling goroutine's own waiter.
func (g *tickGate) until(w *tickWaiter, t time.Time) time.Time {
	g.mu.Lock()
	if passed := g.passed; !passed.Before(t) {
		g.mu.Unlock()
		return passed
	}
	w.due = t
	heap.Push(&g.waiting, w)
	if g.dozing && (g.doze.IsZero() || t.Before(g.doze)) {
		// The dozing gate sleeps for a later operation, or for none: it wakes to plan again.
		g.doze = t
		select {
		case g.kick <- struct{}{}:
		default:
		}
	}
	g.mu.Unlock()
	select {
	case passed := <-w.woken:
		return passed
	case <-g.done:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.passed
	}
}

// stop ends the ticking; goroutines still waiting return at once.
func (g *tickGate) stop() {
	g.once.Do(func() { close(g.done) })
}
