package cql

import (
	"context"
	"errors"
	"testing"
	"time"
)

type key struct{}

// A request armed and never disarmed is cancelled after the timeout, within two ticks; the
// contexts made from the Deadline see it too.
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
	if took < timeout-d.tick || took > timeout+2*d.tick+50*time.Millisecond {
		t.Errorf("cancelled after %s, want %s within two ticks of %s", took, timeout, d.tick)
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
	if x.Err() != nil {
		t.Fatalf("a disarmed request was cancelled: %v", x.Err())
	}
	select {
	case <-x.Done():
		t.Fatal("Done closed for a disarmed request")
	default:
	}

	x.Arm()
	<-x.Done()
	x.Arm()
	if x.Err() != nil {
		t.Errorf("Err = %v right after re-arming", x.Err())
	}
	select {
	case <-x.Done():
		t.Errorf("Done already closed right after re-arming")
	default:
	}
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
