package writer

import (
	"testing"
	"time"
)

// TestSleeperWakesOnTimeAndNeverBefore waits with the timerfd sleeper for times just ahead,
// far enough ahead to wait in the poller, already past, and on a writer's clock offset from
// the real one: every wait must end, none before its time. A wait that skipped its first read
// while the timer had already fired would never end (the poller forgot that expiry), and one
// that took readiness for expiry would end early. Waits of 2 ms, which start well before
// their deadline and are woken by the expiry, do not read the timer (most of them: one
// descheduled past its deadline before it began reads it once).
func TestSleeperWakesOnTimeAndNeverBefore(t *testing.T) {
	for name, offset := range map[string]time.Duration{
		"the real clock":         0,
		"a clock 3 s ahead":      3 * time.Second,
		"a clock 3 s behind":     -3 * time.Second,
		"a clock 1 ms behind it": -time.Millisecond,
	} {
		t.Run(name, func(t *testing.T) {
			now := func() time.Time { return time.Now().Add(offset) }
			s := newSleeper(now)
			defer s.close()
			if s.rc == nil {
				t.Fatal("the sleeper has no timerfd to wait on: it fell back to time.Sleep")
			}
			// 1 ns and 1 µs ahead fire before the wait reaches the poller; the rest after.
			for i, ahead := range []time.Duration{time.Nanosecond, time.Microsecond, 20 * time.Microsecond,
				300 * time.Microsecond, 2 * time.Millisecond, -time.Millisecond, time.Nanosecond} {
				reads := s.reads
				for range 20 {
					due := now().Add(ahead)
					woke := make(chan time.Time, 1)
					go func() { s.until(due); woke <- now() }()
					select {
					case at := <-woke:
						if at.Before(due) {
							t.Fatalf("wait %d (%v ahead) ended %v before its time", i, ahead, due.Sub(at))
						}
					case <-time.After(30 * time.Second):
						t.Fatalf("wait %d (%v ahead) never ended", i, ahead)
					}
				}
				if n := s.reads - reads; ahead == 2*time.Millisecond && n > 10 {
					t.Fatalf("20 waits of %v read the timer %d times; a wait the expiry woke needs no read", ahead, n)
				}
			}
		})
	}
}
