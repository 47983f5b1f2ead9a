package writer

import "time"

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
