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
	done    chan struct{}
	once    sync.Once
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
	g := &tickGate{done: make(chan struct{})}
	go g.run(start, tick, now)
	return g
}

func (g *tickGate) run(start time.Time, tick time.Duration, now func() time.Time) {
	sl := newSleeper(now)
	defer sl.close()
	for {
		// The next grid point after now: ticks missed while the process was descheduled are
		// not made up one by one, a single tick lets everything due through.
		next := start
		if d := now().Sub(start); d >= 0 {
			next = start.Add((d/tick + 1) * tick)
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
