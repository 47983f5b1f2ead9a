package writer

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// A writer has one clock, Config.Now, and every time the load reads goes through it: when a
// phase starts, when an operation is sent and completes, the rows' write timestamps, the
// barriers, the summary's window. Tests offset it to play a writer whose clock is off
// Cassandra's (timestamp_integration_test.go, truth_integration_test.go); it must advance as
// time.Now does, because the writer sleeps until its readings and times durations by them. An
// offset time.Now keeps Go's monotonic reading, so durations between readings are unaffected
// by the offset or by steps of the system's wall clock.

// ClockOffset is a writer's clock against Cassandra's.
type ClockOffset struct {
	// Offset is the writer's clock minus Cassandra's: positive when the writer is ahead.
	Offset time.Duration
	// Error bounds it: half the round trip of the reading it came from.
	Error time.Duration
}

// offsetProbes is how many round trips measureOffset makes; it keeps the shortest.
const offsetProbes = 5

// measureOffset reads Cassandra's clock (currentTimestamp(), milliseconds) between two
// readings of now and keeps the probe with the shortest round trip, as NTP keeps its best
// sample: the server's reading lies within that round trip, so half of it bounds the error
// (plus the server's millisecond truncation).
func measureOffset(ctx context.Context, s *gocql.Session, now func() time.Time, timeout time.Duration) (ClockOffset, error) {
	best := ClockOffset{Error: -1}
	var lastErr error
	for range offsetProbes {
		qctx, cancel := context.WithTimeout(ctx, timeout)
		var server time.Time
		before := now()
		err := s.Query("SELECT currentTimestamp() FROM system.local").Consistency(gocql.One).ScanContext(qctx, &server)
		after := now()
		cancel()
		if err != nil {
			lastErr = err
			continue
		}
		rtt := after.Sub(before)
		mid := before.Add(rtt / 2)
		// The server truncates to the millisecond: its true reading is up to 1 ms later.
		o := ClockOffset{Offset: mid.Sub(server.Add(500 * time.Microsecond)), Error: rtt/2 + 500*time.Microsecond}
		if best.Error < 0 || o.Error < best.Error {
			best = o
		}
	}
	if best.Error < 0 {
		return ClockOffset{}, fmt.Errorf("reading Cassandra's clock: %w", lastErr)
	}
	return best, nil
}

// MeasureOffset reads this process's clock against Cassandra's through s, as a writer does
// before its window: a replication-lag observer corrects its first sights by it.
func MeasureOffset(ctx context.Context, s *gocql.Session, now func() time.Time, timeout time.Duration) (ClockOffset, error) {
	return measureOffset(ctx, s, now, timeout)
}

// fromCassandra turns an instant on Cassandra's clock into one on this writer's clock, with
// the monotonic reading the load is timed by; toCassandra the other way.
func (ld *load) fromCassandra(at time.Time) time.Time {
	now := ld.now()
	return now.Add(at.Add(ld.met.offset.Offset).Sub(now))
}

func (ld *load) toCassandra(t time.Time) time.Time {
	now := ld.now()
	return now.Add(t.Sub(now)).Add(-ld.met.offset.Offset)
}
