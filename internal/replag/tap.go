package replag

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/writer"
)

// Tap is an observer started on a session of the observed datacenter, and the writer tap
// that feeds it a sampled share of the writer's acknowledged inserts. `cassbench run
// --observe-datacenter` and the writer pods of a run across datacenters both start it.
type Tap struct {
	Writer  *writer.LagTap
	obs     *Observer
	session *gocql.Session
	limit   time.Duration
}

// StartTap measures this process's clock against Cassandra through s, a session of the
// observed datacenter (Connect), and starts an observer on it reading query (the workload's
// RowKeyCQL) for one insert in 1/sample, with readers reads in flight. Finish closes s; so
// does a failed StartTap.
func StartTap(ctx context.Context, s *gocql.Session, query string, sample float64, poll, limit time.Duration, readers int) (*Tap, error) {
	clock, err := writer.MeasureOffset(ctx, s, time.Now, 10*time.Second)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("measuring the observer's clock: %w", err)
	}
	obs, err := Start(ctx, Config{Session: s, Query: query, Poll: poll, Limit: limit, Timeout: 5 * time.Second, Readers: readers, Clock: clock})
	if err != nil {
		s.Close()
		return nil, err
	}
	every := max(int64(1/sample+0.5), 1)
	tap := &writer.LagTap{Every: every, Expect: func(key []any, acked time.Time, c writer.ClockOffset) {
		obs.Expect(Key{Values: key, Acked: acked, Clock: c})
	}}
	return &Tap{Writer: tap, obs: obs, session: s, limit: limit}, nil
}

// Finish waits for the keys still pending (at most the limit, and 10 s for the reads under
// way), closes the session and returns what was observed.
func (t *Tap) Finish(ctx context.Context) Result {
	defer t.session.Close()
	ctx, cancel := context.WithTimeout(ctx, t.limit+10*time.Second)
	defer cancel()
	return t.obs.Finish(ctx)
}
