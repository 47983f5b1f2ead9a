package cql

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Deadlines bound the requests of a fixed set of goroutines, each sending one request at a
// time, without a timer per request. The driver arms a fresh timer for every request it sends
// (allocated, started and stopped under the runtime's timer locks, and an extra case in the
// select every response waits in); at tens of thousands of requests a second that is about a
// tenth of the client's CPU. Here each goroutine has one Deadline, a context that stays the
// same from request to request: arming it is two atomic stores, and one watchdog goroutine
// checks all of them a few dozen times per timeout and cancels the ones that ran out. A
// request is cancelled between timeout and timeout plus two ticks after it was armed.
//
// A session whose requests all run under a Deadline (or another context with a deadline)
// can be opened with Options.ContextTimeouts, which turns the driver's timer off.
type Deadlines struct {
	timeout time.Duration
	tick    time.Duration
	// now is the watchdog's clock, in Unix nanoseconds, at most a tick old.
	now  atomic.Int64
	mu   sync.Mutex
	all  []*Deadline
	stop chan struct{}
	once sync.Once
}

// NewDeadlines starts a watchdog for requests that may take timeout; Stop ends it.
func NewDeadlines(timeout time.Duration) *Deadlines {
	d := &Deadlines{timeout: timeout, tick: min(max(timeout/50, time.Millisecond), 100*time.Millisecond), stop: make(chan struct{})}
	d.now.Store(time.Now().UnixNano())
	go d.watch()
	return d
}

// Stop ends the watchdog; requests armed after it are no longer cancelled.
func (d *Deadlines) Stop() { d.once.Do(func() { close(d.stop) }) }

// New returns a Deadline for one goroutine's requests.
func (d *Deadlines) New() *Deadline {
	x := &Deadline{owner: d}
	x.done.Store(new(chan struct{}))
	*x.done.Load() = make(chan struct{})
	d.mu.Lock()
	d.all = append(d.all, x)
	d.mu.Unlock()
	return x
}

func (d *Deadlines) watch() {
	t := time.NewTicker(d.tick)
	defer t.Stop()
	var all []*Deadline
	for {
		select {
		case <-d.stop:
			return
		case now := <-t.C:
			all = d.check(now.UnixNano(), all)
		}
	}
}

// check is one tick of the watchdog at n (Unix nanoseconds): it moves the clock requests are
// armed by to n and cancels the requests that ran out by then. all is reused as scratch.
func (d *Deadlines) check(n int64, all []*Deadline) []*Deadline {
	d.now.Store(n)
	d.mu.Lock()
	all = append(all[:0], d.all...)
	d.mu.Unlock()
	for _, x := range all {
		if at := x.at.Load(); at != 0 && at <= n {
			x.expire(at)
		}
	}
	return all
}

// A Deadline is a context whose deadline is re-armed for each request of its goroutine. It
// carries no values and has no parent; contexts made from it (context.WithValue) inherit its
// cancellation.
type Deadline struct {
	owner *Deadlines
	// at is when the armed request runs out (Unix nanoseconds), 0 when none is armed.
	at atomic.Int64
	// done is closed when an armed request ran out; the next Arm replaces it.
	done    atomic.Pointer[chan struct{}]
	expired atomic.Bool
	mu      sync.Mutex
}

// Arm starts the clock on the next request.
func (x *Deadline) Arm() {
	if x.expired.Load() {
		x.mu.Lock()
		fresh := make(chan struct{})
		x.done.Store(&fresh)
		x.expired.Store(false)
		x.mu.Unlock()
	}
	x.at.Store(x.owner.now.Load() + int64(x.owner.timeout))
}

// Disarm says the request finished.
func (x *Deadline) Disarm() { x.at.Store(0) }

// expire cancels the request armed to run out at at, unless it finished or another was armed
// meanwhile.
func (x *Deadline) expire(at int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.at.CompareAndSwap(at, 0) {
		return
	}
	x.expired.Store(true)
	close(*x.done.Load())
}

// Deadline reports when the armed request runs out.
func (x *Deadline) Deadline() (time.Time, bool) {
	if at := x.at.Load(); at != 0 {
		return time.Unix(0, at), true
	}
	return time.Time{}, false
}

// Done is closed when the armed request ran out.
func (x *Deadline) Done() <-chan struct{} { return *x.done.Load() }

// Err is context.DeadlineExceeded once the armed request ran out.
func (x *Deadline) Err() error {
	if x.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

// Value has no values to give.
func (x *Deadline) Value(any) any { return nil }
