package writer

import (
	"context"
	"fmt"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// BarrierTable is the table, in the benchmark keyspace, where writers of a run meet. Writer
// pods have no Kubernetes credentials, so the only thing they all share is Cassandra.
const BarrierTable = "cassbench_barrier"

// BarrierTableCQL creates the barrier table; setup runs it.
func BarrierTableCQL(keyspace string) string {
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (run text, writer int, at timestamp, PRIMARY KEY (run, writer))", quote(keyspace), BarrierTable)
}

// quote makes a keyspace name as Cassandra stores it safe to use, whatever its case.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// startLead is how long after the last writer arrived everyone starts: long enough for every
// writer's next poll to see the last row.
const startLead = 2 * time.Second

// CommonStart is the measured start every writer derives from the same barrier rows: the
// latest arrival plus startLead. It reports false until all writers have arrived.
func CommonStart(arrivals []time.Time, writers int32) (time.Time, bool) {
	if int32(len(arrivals)) < writers || len(arrivals) == 0 {
		return time.Time{}, false
	}
	latest := arrivals[0]
	for _, at := range arrivals[1:] {
		if at.After(latest) {
			latest = at
		}
	}
	// Cassandra keeps timestamps to the millisecond; so must the computation.
	return latest.Truncate(time.Millisecond).Add(startLead), true
}

// BarrierConsistency is QUORUM so that a writer's poll sees every acknowledged arrival, or
// ONE where there is a single replica and QUORUM is the same thing.
func BarrierConsistency(replicationFactor int32) gocql.Consistency {
	if replicationFactor <= 1 {
		return gocql.One
	}
	return gocql.Quorum
}

// Barrier is one writer's view of the start barrier.
type Barrier struct {
	Session     *gocql.Session
	Keyspace    string
	Run         string
	Index       int32
	Writers     int32
	Consistency gocql.Consistency
	// Timeout is the longest wait for one more writer to arrive.
	Timeout time.Duration
	// RequestTimeout bounds each query (default 10s).
	RequestTimeout time.Duration
	Poll           time.Duration
	Now            func() time.Time
	// Offset is this writer's clock minus Cassandra's: arrivals are recorded, and the start
	// agreed, in Cassandra's time, so that writers whose clocks disagree still start together.
	Offset time.Duration
	// GiveUp, when set, is asked at every poll whether to stop waiting; its error says why.
	GiveUp func() error
}

// Wait records this writer's arrival and returns the common start, in Cassandra's time,
// once all writers arrived. It gives up when Timeout passes without a writer arriving: many
// writers connecting to a busy cluster may take longer than Timeout to arrive all, and still
// keep arriving, while a writer that failed before arriving stops them, at once when GiveUp
// learns of it.
func (b Barrier) Wait(ctx context.Context) (time.Time, error) {
	if err := b.arrive(ctx); err != nil {
		return time.Time{}, fmt.Errorf("start barrier: recording arrival: %w", err)
	}
	arrivals, err := b.await(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("start barrier: %w", err)
	}
	start, _ := CommonStart(arrivals, b.Writers)
	return start, nil
}

// End records that this writer's window ended. With wait, it then waits, as Wait does, until
// every writer's has: the nodes' figures are differences of counters read at the two ends of
// the run's window, so the last read comes after the last writer's last operation. Writers
// that do not read nodes do not wait.
func (b Barrier) End(ctx context.Context, wait bool) error {
	b.Run += endSuffix
	// A run ends as its cluster is: a replica down at the end (the runs that explain most)
	// must not hold the writers' reports back by a barrier write that needs it.
	b.Consistency = gocql.One
	if err := b.arrive(ctx); err != nil {
		return fmt.Errorf("end barrier: recording the end: %w", err)
	}
	if !wait {
		return nil
	}
	if _, err := b.await(ctx); err != nil {
		return fmt.Errorf("end barrier: %w", err)
	}
	return nil
}

// endSuffix keys the end barrier's rows apart from the start's in the same partition space.
const endSuffix = "/end"

// arrive records this writer's row. It is retried: a barrier lost to one timeout would fail
// the whole run.
func (b Barrier) arrive(ctx context.Context) error {
	now, poll := b.clock()
	insert := fmt.Sprintf("INSERT INTO %s.%s (run, writer, at) VALUES (?, ?, ?)", quote(b.Keyspace), BarrierTable)
	deadline := now().Add(b.Timeout)
	for {
		qctx, cancel := b.queryContext(ctx)
		err := b.Session.Query(insert, b.Run, int(b.Index), now().Add(-b.Offset)).Consistency(b.Consistency).ExecContext(qctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || now().After(deadline) {
			return err
		}
		sleepCtx(ctx, poll)
	}
}

// await polls until every writer's row is there and returns their times.
func (b Barrier) await(ctx context.Context) ([]time.Time, error) {
	now, poll := b.clock()
	sel := fmt.Sprintf("SELECT at FROM %s.%s WHERE run = ?", quote(b.Keyspace), BarrierTable)
	seen := 0
	deadline := now().Add(b.Timeout)
	for {
		arrivals, err := b.arrivals(ctx, sel)
		if err == nil {
			if int32(len(arrivals)) >= b.Writers && len(arrivals) > 0 {
				return arrivals, nil
			}
			if len(arrivals) > seen {
				seen, deadline = len(arrivals), now().Add(b.Timeout)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if b.GiveUp != nil {
			if err := b.GiveUp(); err != nil {
				return nil, fmt.Errorf("saw %d of %d writers, and gave up: %w", seen, b.Writers, err)
			}
		}
		if now().After(deadline) {
			return nil, fmt.Errorf("saw %d of %d writers, and none more for %s", seen, b.Writers, b.Timeout)
		}
		sleepCtx(ctx, poll)
	}
}

func (b Barrier) clock() (func() time.Time, time.Duration) {
	now, poll := b.Now, b.Poll
	if now == nil {
		now = time.Now
	}
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	return now, poll
}

// queryContext bounds one query.
func (b Barrier) queryContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.RequestTimeout <= 0 {
		return context.WithTimeout(ctx, 10*time.Second)
	}
	return context.WithTimeout(ctx, b.RequestTimeout)
}

func (b Barrier) arrivals(ctx context.Context, sel string) ([]time.Time, error) {
	ctx, cancel := b.queryContext(ctx)
	defer cancel()
	iter := b.Session.Query(sel, b.Run).Consistency(b.Consistency).IterContext(ctx)
	var out []time.Time
	var at time.Time
	for iter.Scan(&at) {
		out = append(out, at)
	}
	return out, iter.Close()
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
