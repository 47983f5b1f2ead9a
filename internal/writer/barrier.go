package writer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
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

// startLead is how long after the decision everyone starts: long enough for every waiter's
// next poll of the go row to find it.
const startLead = 2 * time.Second

// endRecheck is how often a writer waiting at the end barrier counts the arrivals itself:
// ends are recorded and read at ONE, where the writer that completed the barrier may not see
// a row another replica acknowledged, and no one decides until a waiter counts again.
const endRecheck = 2 * time.Second

// BarrierConsistency is QUORUM so that a writer's poll sees every acknowledged arrival, or
// ONE where there is a single replica and QUORUM is the same thing.
func BarrierConsistency(replicationFactor int32) gocql.Consistency {
	if replicationFactor <= 1 {
		return gocql.One
	}
	return gocql.Quorum
}

// Replicas is how many replicas the run's keyspace keeps of a row: schema.replication.factor,
// or the factors of schema.replication.datacenters added up, where a map gives them (a
// keyspace with one replica in each of two datacenters has two, and its barrier needs QUORUM).
func Replicas(r cbv1.Replication) int32 {
	if len(r.Datacenters) == 0 {
		return r.Factor
	}
	var n int32
	for _, d := range r.Datacenters {
		n += d.Factor
	}
	return n
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
	// Poll is the mean interval between polls of the go row; each is jittered by half of it,
	// so that writers that arrived together do not poll together.
	Poll time.Duration
	Now  func() time.Time
	// Offset is this writer's clock minus Cassandra's: arrivals are recorded, and the start
	// agreed, in Cassandra's time, so that writers whose clocks disagree still start together.
	Offset time.Duration
	// GiveUp, when set, is asked at every poll whether to stop waiting; its error says why.
	GiveUp func() error

	// ending marks the end barrier: its go row carries no start, and is a plain write.
	ending bool
	// recheck, when set, is how often a waiter counts the arrivals even before its deadline.
	recheck time.Duration
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
	start, err := b.await(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("start barrier: %w", err)
	}
	return start, nil
}

// End records that this writer's window ended. With wait, it then waits, as Wait does, until
// every writer's has: the nodes' figures are differences of counters read at the two ends of
// the run's window, so the last read comes after the last writer's last operation. Writers
// that do not read nodes do not wait, but the last of them to end may be the one that
// completes the barrier, so each counts once.
func (b Barrier) End(ctx context.Context, wait bool) error {
	b.Run += endSuffix
	// A run ends as its cluster is: a replica down at the end (the runs that explain most)
	// must not hold the writers' reports back by a barrier write that needs it.
	b.Consistency = gocql.One
	b.ending, b.recheck = true, endRecheck
	if err := b.arrive(ctx); err != nil {
		return fmt.Errorf("end barrier: recording the end: %w", err)
	}
	if !wait {
		// A count that fails is made good by the waiters' own counts.
		b.settle(ctx)
		return nil
	}
	if _, err := b.await(ctx); err != nil {
		return fmt.Errorf("end barrier: %w", err)
	}
	return nil
}

// endSuffix keys the end barrier's rows apart from the start's in the same partition space.
const endSuffix = "/end"

// arrive records this writer's row in its group. It is retried, with the same time, so that
// a retry of an insert that was applied does not move the arrival: a barrier lost to one
// timeout would fail the whole run.
func (b Barrier) arrive(ctx context.Context) error {
	now, poll := b.clock()
	at := now().Add(-b.Offset)
	key := groupKey(b.Run, b.Index/groupSize(b.Writers))
	deadline := now().Add(b.Timeout)
	for {
		err := b.exec(ctx, b.insert(), key, int(b.Index), at)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || now().After(deadline) {
			return err
		}
		sleepCtx(ctx, poll)
	}
}

// await polls the go row until the barrier's decision is there and returns it. A writer
// that has not counted its group yet (its count failed) counts again first; at its deadline,
// or every recheck, it counts every group, decides if the barrier is complete (the writer
// that completed it stopped before deciding), and gives up if no writer arrived since.
func (b Barrier) await(ctx context.Context) (time.Time, error) {
	now, poll := b.clock()
	var seen int32
	deadline, counted := now().Add(b.Timeout), now()
	settled := false
	for {
		if !settled {
			settled = b.settle(ctx)
		}
		if at, ok, err := b.decision(ctx); err == nil && ok {
			return at, nil
		}
		if ctx.Err() != nil {
			return time.Time{}, ctx.Err()
		}
		if b.GiveUp != nil {
			if err := b.GiveUp(); err != nil {
				// Counted for the message only: a writer gives up once.
				if t, cerr := b.recount(ctx); cerr == nil {
					seen = max(seen, t.seen)
				}
				return time.Time{}, fmt.Errorf("saw %d of %d writers, and gave up: %w", seen, b.Writers, err)
			}
		}
		if b.recountDue(now(), deadline, counted) {
			counted = now()
			t, err := b.recount(ctx)
			switch {
			case err == nil && t.complete && b.decide(ctx, t.latest) == nil:
				// The next poll reads the decision; one that cannot be read is waited for as
				// long as one more writer would be.
				deadline, seen = now().Add(b.Timeout), t.seen
			case err == nil:
				deadline, seen = nextDeadline(t, seen, deadline, now(), b.Offset, b.Timeout, poll), max(seen, t.seen)
			}
			if now().After(deadline) {
				return time.Time{}, fmt.Errorf("saw %d of %d writers, and none more for %s", seen, b.Writers, b.Timeout)
			}
		}
		sleepCtx(ctx, jittered(poll))
	}
}

// recountDue says whether a waiter counts every group now.
func (b Barrier) recountDue(now, deadline, counted time.Time) bool {
	return !now.Before(deadline) || (b.recheck > 0 && now.Sub(counted) >= b.recheck)
}

// jittered spreads polls over [poll/2, 3·poll/2).
func jittered(poll time.Duration) time.Duration {
	return poll/2 + rand.N(poll)
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

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
