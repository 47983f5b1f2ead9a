package writer_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/writer"
)

// countedSession is a session whose queries, and the rows they read, are counted.
func countedSession(t *testing.T, c *cassandra.Cluster) (*gocql.Session, *queryCounter) {
	t.Helper()
	cfg, err := connOptions(c).Cluster()
	if err != nil {
		t.Fatal(err)
	}
	counter := &queryCounter{}
	cfg.QueryObserver = counter
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, counter
}

// barrierSpec sets up a keyspace at replication factor 2, where the barrier reads and writes
// at QUORUM as a production keyspace's does.
func barrierSpec(t *testing.T, c *cassandra.Cluster, keyspace string) (string, gocql.Consistency) {
	t.Helper()
	s := spec(keyspace, func(b *builders.BenchmarkRunBuilder) { b.ReplicationFactor(2) })
	setUp(t, c, s)
	return s.Schema.Keyspace, writer.BarrierConsistency(s.Schema.Replication.Factor)
}

// waitAll runs Wait for writers [from, to) of b at once and returns their starts. It may
// run on a goroutine of its own, so it fails the test without stopping it.
func waitAll(t *testing.T, b writer.Barrier, from, to int32) []time.Time {
	t.Helper()
	starts, errs := make([]time.Time, to-from), make([]error, to-from)
	var wg sync.WaitGroup
	for i := from; i < to; i++ {
		wg.Go(func() {
			w := b
			w.Index = i
			starts[i-from], errs[i-from] = w.Wait(context.Background())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", from+int32(i), err)
		}
	}
	return starts
}

// Writers arriving together all learn one start, after the last arrived, and the barrier's
// reads grow with the writers, not with their square: a writer reads its group and the
// groups' marks once (about 2√N rows), then one row a poll.
func TestBarrierOneStartLinearReads(t *testing.T) {
	c := cluster(t)
	keyspace, cl := barrierSpec(t, c, "it_barrier_linear")
	session, counter := countedSession(t, c)
	const writers = 60
	began := time.Now()
	starts := waitAll(t, writer.Barrier{Session: session, Keyspace: keyspace, Run: "linear", Writers: writers,
		Consistency: cl, Timeout: time.Minute}, 0, writers)
	for i, at := range starts {
		if !at.Equal(starts[0]) {
			t.Errorf("writer %d starts at %s, writer 0 at %s", i, at, starts[0])
		}
	}
	if !starts[0].After(began) {
		t.Errorf("the start %s is before the writers arrived (%s)", starts[0], began)
	}
	queries, rows := counter.queries.Load(), counter.rows.Load()
	// Every query reads at most one row but the counts: a writer's group (⌈√60⌉ = 8 rows),
	// the groups' marks (8), and, once per group, a mark's write. A count that fails is
	// made again at the writer's next poll: on a loaded machine (a CI run read 1,844 rows
	// where one count a writer allows 1,585) some are made twice, so two counts a writer are
	// allowed. The old barrier read every arrival at every poll, 60 rows a query.
	perWriter := 2 * int64(math.Ceil(math.Sqrt(writers)))
	if limit := 2*writers*perWriter + queries; rows > limit {
		t.Errorf("%d writers read %d rows in %d queries, more than %d: the reads grow faster than the writers", writers, rows, queries, limit)
	}
	t.Logf("%d writers: %d queries (%d failed), %d rows read, start %s after the first arrived", writers, queries, counter.errors.Load(), rows, starts[0].Sub(began).Round(time.Millisecond))
}

// A writer that arrives and stops before counting may be the one that completed the
// barrier; the others then count at their deadline, decide, and start together.
func TestBarrierDecidesWithoutTheLastWriter(t *testing.T) {
	c := cluster(t)
	keyspace, cl := barrierSpec(t, c, "it_barrier_silent")
	session, _ := countedSession(t, c)
	const writers = 5
	b := writer.Barrier{Session: session, Keyspace: keyspace, Run: "silent", Writers: writers, Consistency: cl, Timeout: 2 * time.Second}
	began := time.Now()
	var starts []time.Time
	var wg sync.WaitGroup
	wg.Go(func() { starts = waitAll(t, b, 0, writers-1) })
	time.Sleep(500 * time.Millisecond)
	last := b
	last.Index = writers - 1
	if err := last.Arrive(context.Background()); err != nil {
		t.Fatalf("the last writer's arrival: %v", err)
	}
	arrived := time.Now()
	wg.Wait()
	for i, at := range starts {
		if !at.Equal(starts[0]) {
			t.Errorf("writer %d starts at %s, writer 0 at %s", i, at, starts[0])
		}
	}
	// The waiters learned of the last arrival at their deadline (2 s after their own),
	// and the start is set then, not from the arrival in the past.
	if lead := starts[0].Sub(arrived); lead < 2*time.Second+time.Second {
		t.Errorf("start %s after the last arrival, want at least the deadline's wait and the lead (3s)", lead)
	}
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("the waiters took %s to decide", took)
	}
}

// A writer that arrives again after the start was decided (a restarted process) learns the
// same start, whatever its new arrival time: the start is written once.
func TestBarrierLateArrivalLearnsTheSameStart(t *testing.T) {
	c := cluster(t)
	keyspace, cl := barrierSpec(t, c, "it_barrier_again")
	session, _ := countedSession(t, c)
	const writers = 4
	b := writer.Barrier{Session: session, Keyspace: keyspace, Run: "again", Writers: writers, Consistency: cl, Timeout: time.Minute}
	starts := waitAll(t, b, 0, writers)
	time.Sleep(time.Second)
	again := waitAll(t, b, writers-1, writers)
	if !again[0].Equal(starts[0]) {
		t.Errorf("writer %d arriving again starts at %s, the others at %s", writers-1, again[0], starts[0])
	}
}

// The end barrier releases a waiter only once every writer ended, though the others only
// record their end and leave; the last of those completes it.
func TestEndBarrierWaitsForTheLastEnd(t *testing.T) {
	c := cluster(t)
	keyspace, cl := barrierSpec(t, c, "it_barrier_end")
	session, _ := countedSession(t, c)
	const writers = 6
	b := writer.Barrier{Session: session, Keyspace: keyspace, Run: "end", Writers: writers, Consistency: cl, Timeout: time.Minute}
	released := make(chan time.Time, 1)
	go func() {
		if err := b.End(context.Background(), true); err != nil {
			t.Errorf("waiter: %v", err)
		}
		released <- time.Now()
	}()
	var lastEnding, lastEnded time.Time
	for i := int32(1); i < writers; i++ {
		time.Sleep(300 * time.Millisecond)
		w := b
		w.Index = i
		lastEnding = time.Now()
		if err := w.End(context.Background(), false); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		lastEnded = time.Now()
	}
	select {
	case at := <-released:
		if at.Before(lastEnding) {
			t.Errorf("the waiter was released at %s, before writer %d ended at %s", at.Format(time.StampMilli), writers-1, lastEnding.Format(time.StampMilli))
		}
		if late := at.Sub(lastEnded); late > 5*time.Second {
			t.Errorf("the waiter was released %s after the last end", late)
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiter was not released a minute after every writer ended")
	}
}
