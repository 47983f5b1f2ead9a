package writer

import (
	"sync"
	"testing"
	"time"
)

// TestTickGateLetsThroughOnlyWhatIsDue ticks a gate by hand over 40 waiting operations due
// over four ticks: each tick must let through exactly the operations due by it, none before
// its start, each with the time of the tick that let it through.
func TestTickGateLetsThroughOnlyWhatIsDue(t *testing.T) {
	const tick = 10 * time.Millisecond
	start := time.Unix(1_000_000, 0)
	g := &tickGate{done: make(chan struct{})}
	defer g.stop()
	type release struct {
		due, by time.Time
	}
	out := make(chan release, 40)
	var wg sync.WaitGroup
	for i := range 40 {
		due := start.Add(time.Duration(i) * tick / 10)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out <- release{due, g.until(newTickWaiter(), due)}
		}()
	}
	waitWaiting := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			g.mu.Lock()
			got := len(g.waiting)
			g.mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d goroutines wait at the gate, want %d", got, n)
			}
		}
	}
	waitWaiting(40)
	for k := 0; k <= 3; k++ {
		at := start.Add(time.Duration(k) * tick)
		g.tick(at)
		// Tick k lets through the operations due at k*tick and before: 1 at tick 0, then 10.
		released := 1
		if k > 0 {
			released = 10
		}
		waitWaiting(40 - (10*k + 1))
		for range released {
			r := <-out
			if r.due.After(at) || !r.by.Equal(at) {
				t.Fatalf("operation due at +%v let through at +%v, by the tick at +%v", r.due.Sub(start), r.by.Sub(start), at.Sub(start))
			}
		}
	}
	g.tick(start.Add(4 * tick))
	wg.Wait()
	close(out)
	for r := range out {
		if !r.by.Equal(start.Add(4 * tick)) {
			t.Fatalf("operation due at +%v let through by a tick at +%v, want the last", r.due.Sub(start), r.by.Sub(start))
		}
	}
}

// TestTickGateReleasesOnItsOwnTimer runs the gate on its timer: every operation gets
// through, and never before its intended start.
func TestTickGateReleasesOnItsOwnTimer(t *testing.T) {
	start := time.Now().Add(20 * time.Millisecond)
	g := newTickGate(start, 5*time.Millisecond, time.Now)
	defer g.stop()
	var wg sync.WaitGroup
	for i := range 20 {
		due := start.Add(time.Duration(i) * time.Millisecond)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if by := g.until(newTickWaiter(), due); by.Before(due) {
				t.Errorf("operation due at +%v let through by the tick at +%v", due.Sub(start), by.Sub(start))
			}
		}()
	}
	wg.Wait()
}

// TestTickGateStopReleasesWaiters checks that a stopped gate lets every waiter go, so a phase
// that ends never leaves a goroutine waiting for a tick that will not come.
func TestTickGateStopReleasesWaiters(t *testing.T) {
	g := newTickGate(time.Now(), time.Hour, time.Now)
	done := make(chan struct{})
	go func() {
		g.until(newTickWaiter(), time.Now().Add(24*time.Hour))
		close(done)
	}()
	g.stop()
	<-done
}

// With a tick, an operation is due at the first grid point at or after its place in the
// rate's timetable: the rate's operations within one tick become one burst at its end.
func TestOnGridDuesEachOperationAtTheEndOfItsTick(t *testing.T) {
	start := time.Unix(1000, 0)
	tick := time.Millisecond
	for _, c := range []struct {
		at, want time.Duration
	}{
		{-5 * time.Microsecond, 0},
		{0, 0},
		{1, tick},
		{100 * time.Microsecond, tick},
		{tick, tick},
		{tick + 1, 2 * tick},
		{7*tick + 999*time.Microsecond, 8 * tick},
	} {
		if got := onGrid(start, tick, start.Add(c.at)); !got.Equal(start.Add(c.want)) {
			t.Errorf("onGrid(start+%v) = start+%v, want start+%v", c.at, got.Sub(start), c.want)
		}
	}
}

// TestTickGateDozesWhileNothingIsDue: with nothing waiting, or nothing due for a while, the
// gate does not tick every grid point (each tick wakes the process): an operation due 300 ms
// ahead after 300 ms with no one waiting costs a few ticks, not the 600 of a 1 ms grid, and is
// still let through no earlier than due.
func TestTickGateDozesWhileNothingIsDue(t *testing.T) {
	const tick = time.Millisecond
	start := time.Now()
	g := newTickGate(start, tick, time.Now)
	defer g.stop()
	time.Sleep(300 * time.Millisecond)
	due := onGrid(start, tick, time.Now().Add(300*time.Millisecond))
	if by := g.until(newTickWaiter(), due); by.Before(due) {
		t.Errorf("operation due at +%v let through by the tick at +%v", due.Sub(start), by.Sub(start))
	}
	g.mu.Lock()
	ticks := g.ticks
	g.mu.Unlock()
	if ticks > 60 {
		t.Errorf("the gate ticked %d times for one operation due 600 ticks after it started, want a few", ticks)
	}
}

// TestTickGateWakesFromADozeForAnEarlierOperation: a gate dozing until shortly before an
// operation due in an hour lets through one due in 50 ms, which arrived while it dozed, by a
// tick of its own, not by the hour's.
func TestTickGateWakesFromADozeForAnEarlierOperation(t *testing.T) {
	const tick = time.Millisecond
	start := time.Now()
	g := newTickGate(start, tick, time.Now)
	defer g.stop()
	late := onGrid(start, tick, start.Add(time.Hour))
	go g.until(newTickWaiter(), late)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		dozing := g.dozing && g.doze.Equal(late)
		g.mu.Unlock()
		if dozing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the gate never dozed for the operation due in an hour")
		}
	}
	due := onGrid(start, tick, time.Now().Add(50*time.Millisecond))
	released := make(chan time.Time, 1)
	go func() { released <- g.until(newTickWaiter(), due) }()
	var by time.Time
	select {
	case by = <-released:
	case <-time.After(time.Minute):
		t.Fatalf("operation due at +%v not let through a minute later: the dozing gate slept on", due.Sub(start))
	}
	if by.Before(due) || !by.Before(late) {
		t.Errorf("operation due at +%v let through by the tick at +%v, want at or after it and before +%v", due.Sub(start), by.Sub(start), late.Sub(start))
	}
}
