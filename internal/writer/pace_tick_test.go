package writer

import (
	"sync"
	"testing"
	"time"
)

// TestTickGateReleasesDueOperationsTogether waits 40 goroutines on intended starts spread
// over four ticks and checks that the gate never lets one through before its start and that
// it lets them through in groups, at most one a tick, rather than one wake-up each.
func TestTickGateReleasesDueOperationsTogether(t *testing.T) {
	const tick = 20 * time.Millisecond
	start := time.Now().Add(50 * time.Millisecond)
	g := newTickGate(start, tick, time.Now)
	defer g.stop()
	var mu sync.Mutex
	released := map[time.Time]int{}
	var wg sync.WaitGroup
	for i := range 40 {
		due := start.Add(time.Duration(i) * tick / 10)
		wg.Add(1)
		go func() {
			defer wg.Done()
			passed := g.until(newTickWaiter(), due)
			if passed.Before(due) {
				t.Errorf("operation due at +%v let through by the tick at +%v", due.Sub(start), passed.Sub(start))
			}
			mu.Lock()
			released[passed]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	// The starts span ticks 0 to 4 of the grid; a descheduled gate may merge ticks, never
	// split them: 40 operations in at most five releases.
	if len(released) > 5 {
		t.Fatalf("40 operations over four ticks were let through in %d releases, want at most 5 (one a tick): %v", len(released), released)
	}
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
