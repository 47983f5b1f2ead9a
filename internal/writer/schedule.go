package writer

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Share is writer index's part of a total split over n writers: the first total%n writers
// take one more, so the shares always add up to the total.
func Share(total int64, n, index int32) int64 {
	if n <= 0 || index < 0 || index >= n {
		return 0
	}
	s := total / int64(n)
	if int64(index) < total%int64(n) {
		s++
	}
	return s
}

// Schedule is an open loop's timetable: operation k is meant to start at Start + k/Rate.
// Times are computed from k, never accumulated, so they do not drift.
type Schedule struct {
	Start time.Time
	Rate  int64 // operations per second, > 0
}

// At is the intended start of operation k, rounded down to the nanosecond.
func (s Schedule) At(k int64) time.Time {
	return s.Start.Add(time.Duration(offsetNanos(k, s.Rate)))
}

// offsetNanos is floor(k * 1e9 / rate) without overflowing for any k a run can reach.
func offsetNanos(k, rate int64) int64 {
	const second = int64(time.Second)
	return (k/rate)*second + (k%rate)*second/rate
}

// Count is how many operations are due strictly before d has elapsed.
func (s Schedule) Count(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	// ceil(d * rate / 1e9), split like offsetNanos to stay within int64.
	const second = int64(time.Second)
	n := int64(d)
	whole, rest := n/second, n%second
	return whole*s.Rate + (rest*s.Rate+second-1)/second
}

// timetable hands out an open loop's operations in order, each with its intended start. An
// operation whose intended start lies more than maxLag in the past when a goroutine comes
// for it is missed, not sent late: the backlog of due-but-unsent operations stays bounded
// (maxLag is the backlog bound over the rate), so a cluster that cannot keep up is measured
// at what it does instead of draining a growing queue after the window.
type timetable struct {
	mu     sync.Mutex
	start  time.Time
	end    time.Time // zero: none
	rate   int64
	limit  int64 // < 0: none
	maxLag time.Duration
	// rnd draws exponential gaps for Poisson arrivals; nil spaces them evenly.
	rnd *rand.Rand
	// next is the next operation's number; nextAt its offset from start (Poisson only).
	next   int64
	nextAt time.Duration
	missed int64
}

func newTimetable(p phase, concurrency int, rnd *rand.Rand) *timetable {
	t := &timetable{start: p.Start, end: p.End, rate: p.Rate, limit: p.Limit, rnd: rnd}
	t.maxLag = backlogBound(concurrency, p.Rate)
	if rnd != nil {
		t.nextAt = t.gap()
	}
	return t
}

func (t *timetable) gap() time.Duration {
	return time.Duration(t.rnd.ExpFloat64() * float64(time.Second) / float64(t.rate))
}

func (t *timetable) offset() time.Duration {
	if t.rnd != nil {
		return t.nextAt
	}
	return time.Duration(offsetNanos(t.next, t.rate))
}

func (t *timetable) advance() {
	t.next++
	if t.rnd != nil {
		t.nextAt += t.gap()
	}
}

func (t *timetable) open(at time.Time) bool {
	return (t.limit < 0 || t.next < t.limit) && (t.end.IsZero() || at.Before(t.end))
}

// take returns the intended start of the next operation to send, skipping (and counting as
// missed) those more than maxLag overdue; false when the phase has no operation left, or
// its end has passed.
func (t *timetable) take(now time.Time) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.end.IsZero() && !now.Before(t.end) {
		return time.Time{}, false
	}
	for {
		at := t.start.Add(t.offset())
		if !t.open(at) {
			return time.Time{}, false
		}
		if now.Sub(at) <= t.maxLag {
			t.advance()
			return at, true
		}
		if t.rnd != nil {
			t.missed++
			t.advance()
			continue
		}
		// Evenly spaced: jump straight to the first operation within maxLag.
		k := Schedule{Start: t.start, Rate: t.rate}.Count(now.Sub(t.start) - t.maxLag)
		if t.limit >= 0 {
			k = min(k, t.limit)
		}
		t.missed += k - t.next
		t.next = k
	}
}

// minBacklog is the least lateness an operation may have before it is missed: a collector
// pause or a scheduling hiccup of a few milliseconds must not cost operations.
const minBacklog = 100 * time.Millisecond

// backlogBound is how overdue an operation may be and still be sent: one interval per
// goroutine, so every goroutine has the next operation waiting when a response comes back,
// and at least minBacklog; never a queue that outlives the window.
func backlogBound(concurrency int, rate int64) time.Duration {
	return max(minBacklog, time.Duration(int64(max(concurrency, 1))*int64(time.Second)/rate))
}

// finish counts what the timetable still held when the window closed: operations due before
// its end that never started. It returns them (the backlog at the end) and every operation
// the window had (due).
func (t *timetable) finish() (backlog, due int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	start := t.next
	if t.end.IsZero() {
		return 0, t.next
	}
	if t.rnd == nil {
		k := Schedule{Start: t.start, Rate: t.rate}.Count(t.end.Sub(t.start))
		if t.limit >= 0 {
			k = min(k, t.limit)
		}
		t.next = max(k, t.next)
	} else {
		for t.open(t.start.Add(t.nextAt)) {
			t.advance()
		}
	}
	backlog = t.next - start
	t.missed += backlog
	return backlog, t.next
}
