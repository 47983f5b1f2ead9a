package cql

import (
	"context"
	"errors"
	"testing"
	"time"
)

type key struct{}

// The watchdog cancels a request at its first tick at or after the request's time ran out,
// never before: checked tick by tick on a clock the test moves, with no watchdog running.
func TestDeadlineExpiresAtTheFirstTickAfterItsTime(t *testing.T) {
	const timeout = 100 * time.Millisecond
	d := &Deadlines{timeout: timeout, tick: 2 * time.Millisecond, stop: make(chan struct{})}
	t0 := time.Now().UnixNano()
	d.now.Store(t0)
	x, other := d.New(), d.New()
	x.Arm()
	other.Arm()
	other.Disarm()
	if at, ok := x.Deadline(); !ok || at.UnixNano() != t0+int64(timeout) {
		t.Fatalf("Deadline() = %v, %v; want the watchdog's clock plus %s", at, ok, timeout)
	}
	var scratch []*Deadline
	scratch = d.check(t0+int64(timeout)-1, scratch)
	assertOpen(t, x, "a nanosecond before its time")
	d.check(t0+int64(timeout), scratch)
	select {
	case <-x.Done():
	default:
		t.Fatal("Done still open at the tick its time ran out")
	}
	if !errors.Is(x.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, want context.DeadlineExceeded", x.Err())
	}
	if other.Err() != nil {
		t.Errorf("a disarmed request was cancelled with the one that ran out: %v", other.Err())
	}
	if d.now.Load() != t0+int64(timeout) {
		t.Errorf("the tick did not move the clock requests are armed by")
	}
}

// A request armed and never disarmed is cancelled by the running watchdog after the timeout,
// never before; the contexts made from the Deadline see it too. How soon after is the tick
// check above: measured in wall time it is also how long a loaded machine took to schedule the
// watchdog and this test (CI, running packages side by side, once took 67 ms more than two
// ticks), so the bound here only catches a watchdog that does not run or ticks far too slowly.
func TestDeadlineCancelsARequestThatRunsOut(t *testing.T) {
	const timeout = 100 * time.Millisecond
	d := NewDeadlines(timeout)
	defer d.Stop()
	x := d.New()
	child := context.WithValue(x, key{}, "route")
	x.Arm()
	start := time.Now()
	if _, ok := x.Deadline(); !ok {
		t.Errorf("an armed Deadline has no deadline")
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not cancelled after 5s")
	}
	took := time.Since(start)
	if took < timeout-d.tick || took > timeout+time.Second {
		t.Errorf("cancelled after %s, want %s (armed by a clock at most a tick of %s old), and well under a second more", took, timeout, d.tick)
	}
	if !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, want context.DeadlineExceeded", child.Err())
	}
	if child.Value(key{}) != "route" {
		t.Errorf("the value of a context made from the Deadline was lost")
	}
}

// A request disarmed in time is never cancelled, and the next request after one that ran
// out starts with a fresh, open context.
func TestDeadlineRearms(t *testing.T) {
	const timeout = 50 * time.Millisecond
	d := NewDeadlines(timeout)
	defer d.Stop()
	x := d.New()

	x.Arm()
	x.Disarm()
	time.Sleep(3 * timeout)
	assertOpen(t, x, "disarmed")

	x.Arm()
	<-x.Done()
	x.Arm()
	assertOpen(t, x, "right after re-arming")
	<-x.Done() // and it runs out again
}

// Deadlines of different goroutines are independent.
func TestDeadlinesAreIndependent(t *testing.T) {
	d := NewDeadlines(50 * time.Millisecond)
	defer d.Stop()
	a, b := d.New(), d.New()
	a.Arm()
	b.Arm()
	b.Disarm()
	<-a.Done()
	if b.Err() != nil {
		t.Errorf("b was cancelled with a: %v", b.Err())
	}
}

// assertOpen fails the test when x was cancelled: neither Err nor Done may say so.
func assertOpen(t *testing.T, x *Deadline, when string) {
	t.Helper()
	if x.Err() != nil {
		t.Fatalf("cancelled %s: Err = %v", when, x.Err())
	}
	select {
	case <-x.Done():
		t.Fatalf("Done closed %s", when)
	default:
	}
}
