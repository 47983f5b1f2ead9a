//go:build !linux

package writer

import "time"

// sleeper falls back to the runtime's timers where there is no timerfd; writer pods run on
// Linux, where pace_linux.go wakes on time.
type sleeper struct {
	// now is the writer's clock.
	now func() time.Time
}

func newSleeper(now func() time.Time) *sleeper { return &sleeper{now: now} }

func (s *sleeper) until(t time.Time) {
	if d := t.Sub(s.now()); d > 0 {
		time.Sleep(d)
	}
}

func (s *sleeper) close() {}
