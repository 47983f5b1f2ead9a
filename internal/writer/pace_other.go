//go:build !linux

package writer

import "time"

// sleeper falls back to the runtime's timers where there is no timerfd; writer pods run on
// Linux, where pace_linux.go wakes on time.
type sleeper struct{}

func newSleeper() *sleeper { return &sleeper{} }

func (s *sleeper) until(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

func (s *sleeper) close() {}
