package cassandra

import (
	"testing"
	"time"
)

// deadlined is a test whose binary ends at deadline (none when zero).
type deadlined struct {
	testing.TB
	deadline time.Time
}

func (d deadlined) Deadline() (time.Time, bool) { return d.deadline, !d.deadline.IsZero() }

// A test waits for the cluster until its binary's -timeout is near, keeping lockMargin to run,
// and never less than lockWait: a package that go test runs beside test/local waits out its
// whole hold, however long this machine makes it.
func TestWaitForFollowsTheBinarysDeadline(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name     string
		deadline time.Time
		atLeast  time.Duration
		atMost   time.Duration
	}{
		{"no deadline", time.Time{}, lockWait, lockWait},
		{"make test's 60m", now.Add(60 * time.Minute), 50*time.Minute - time.Minute, 50 * time.Minute},
		{"a deadline close by", now.Add(5 * time.Minute), lockWait, lockWait},
		{"a deadline passed", now.Add(-time.Minute), lockWait, lockWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := waitFor(deadlined{TB: t, deadline: tc.deadline}); got < tc.atLeast || got > tc.atMost {
				t.Errorf("waitFor = %v, want within [%v, %v]", got, tc.atLeast, tc.atMost)
			}
		})
	}
	// A bare testing.TB (a benchmark's) knows no deadline: lockWait.
	if got := waitFor(struct{ testing.TB }{t}); got != lockWait {
		t.Errorf("waitFor of a TB without Deadline = %v, want %v", got, lockWait)
	}
}
