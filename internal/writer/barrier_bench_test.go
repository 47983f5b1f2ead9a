package writer_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/writer"
)

// queryCounter counts the barrier's queries and the rows they read, as gocql observes them.
type queryCounter struct {
	queries, rows, errors atomic.Int64
	// firstErr is the first error a query met, for the log.
	firstErr atomic.Value
}

func (q *queryCounter) ObserveQuery(_ context.Context, o gocql.ObservedQuery) {
	q.queries.Add(1)
	q.rows.Add(int64(o.Rows))
	if o.Err != nil {
		q.errors.Add(1)
		q.firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", o.Statement, o.Err))
	}
}

// BenchmarkBarrierThousandWriters measures the start barrier of a run of 1,000 writers
// against the local nodes: 1,000 Barrier.Wait calls, the writer's own code, arriving one by one
// over CASSBENCH_BARRIER_SPREAD (default 10s, as pods that start apart do), at the replication
// factor 2 and QUORUM a production keyspace has. It reports the barrier's CQL load (queries,
// rows read, and their rates while writers wait) and the start spread: how late after the
// agreed start the last writer learned it (0 when every writer knew in time), and the least
// margin any writer had. The writers share 8 sessions rather than one each, so the client side
// fits this machine; the load on Cassandra is the same queries either way. Run it with
// -benchtime=1x.
//
// What bounded the barrier that came before: every waiting writer read the run's whole
// barrier partition (one row per writer that arrived) every poll (250 ms), at QUORUM, from the
// RF replicas that own that one partition whatever the datacenter's size: N/0.25 s queries
// and up to 4·N² rows read per second. Now writers meet in ⌈√N⌉ groups (barrier_plan.go): a
// writer writes its arrival, reads its group (≤ 32 rows at 1,000) and, if that completed it,
// marks the group and reads the marks (≤ 32); the writer that completes the last group writes
// the start once (a lightweight transaction), and waiters poll that one row every 125-375 ms.
// A writer's queries do not grow with N, and its rows only as 2√N (64 at 1,000) plus one a
// poll. Writers that give up are counted in writers-gave-up.
//
// Measured here (2 local nodes, 2 shared cores at a load average of 18-22 from the other
// engineers' work, 1,000 writers over 10 s, -benchtime=1x, run in the order before 1, after 1, after 2, before 2,
// after 3, then after 4, before 3 once a waiter that decides reads at its next poll):
//
//	                 max-late   least margin  release spread  queries/writer  rows/writer
//	before, run 1    11,373 ms  -             6,611 ms        3.6             1,792
//	before, run 2     4,493 ms  -             3,285 ms        6.9             3,340
//	after,  run 1         0 ms     96 ms        762 ms        16.1               43
//	after,  run 2         0 ms    695 ms        437 ms        18.3               32
//	after,  run 3         0 ms  1,508 ms        365 ms        23.0               19
//	after,  run 4         0 ms  1,487 ms        491 ms        21.4               23
//	before, run 3     2,736 ms  -             2,043 ms        7.0             3,417
//
// Before, none gave up, but the last writers learned the start 2.7-11.4 s after it (run 1
// on a cluster just started), with 1.8-3.4 million rows read in all; after, every writer knew
// the start before it came, with 19-43 thousand rows read in all. The queries per writer grew:
// a cheap poll is answered in time, so a waiter makes all of its polls. The first after run
// met 32 query errors, which it did not record (the benchmark logs the first one since), and
// no writer was late; the others met none.
func BenchmarkBarrierThousandWriters(b *testing.B) {
	writers, spread := benchWriters(10 * time.Second)
	sessions, counter, keyspace := barrierBench(b)
	for i := 0; b.Loop(); i++ {
		measureBarrier(b, sessions, counter, keyspace, fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i), writers, spread)
	}
}

// benchWriters is how many writers a barrier benchmark meets (CASSBENCH_BARRIER_WRITERS,
// default 1,000) and over how long they arrive (CASSBENCH_BARRIER_SPREAD, default spread).
func benchWriters(spread time.Duration) (int, time.Duration) {
	writers := 1000
	if n, err := strconv.Atoi(os.Getenv("CASSBENCH_BARRIER_WRITERS")); err == nil && n > 0 {
		writers = n
	}
	if d, err := time.ParseDuration(os.Getenv("CASSBENCH_BARRIER_SPREAD")); err == nil {
		spread = d
	}
	return writers, spread
}

// barrierBench makes the benchmarks' keyspace at replication factor 2, and 8 sessions whose
// queries counter counts.
func barrierBench(b *testing.B) ([]*gocql.Session, *queryCounter, string) {
	c := cassandra.Start(b, clusterOptions)
	const keyspace = "it_barrier_bench"
	admin, err := cql.Connect(connOptions(c))
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + keyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
		writer.BarrierTableCQL(keyspace),
	} {
		if err := admin.Query(stmt).Exec(); err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
	}
	counter := &queryCounter{}
	var sessions []*gocql.Session
	for range 8 {
		cfg, err := connOptions(c).Cluster()
		if err != nil {
			b.Fatal(err)
		}
		cfg.QueryObserver = counter
		s, err := cfg.CreateSession()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		sessions = append(sessions, s)
	}
	return sessions, counter, keyspace
}

func measureBarrier(b *testing.B, sessions []*gocql.Session, counter *queryCounter, keyspace, run string, writers int, spread time.Duration) {
	q0, r0, e0 := counter.queries.Load(), counter.rows.Load(), counter.errors.Load()
	learned := make([]time.Time, writers)
	var start time.Time
	var mu sync.Mutex
	failed := 0
	var wg sync.WaitGroup
	began := time.Now()
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * spread / time.Duration(writers))
			at, err := writer.Barrier{Session: sessions[i%len(sessions)], Keyspace: keyspace, Run: run, Index: int32(i),
				Writers: int32(writers), Consistency: writer.BarrierConsistency(2), Timeout: time.Minute}.Wait(context.Background())
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				// A writer that gives up is what is measured: the barrier did not hold.
				if failed++; failed == 1 {
					b.Logf("writer %d: %v", i, err)
				}
				return
			}
			learned[i] = time.Now()
			if !start.IsZero() && !start.Equal(at) {
				b.Errorf("writer %d was told to start at %s, another at %s", i, at, start)
			}
			start = at
		}()
	}
	wg.Wait()
	waited := time.Since(began)
	b.ReportMetric(float64(failed), "writers-gave-up")
	late, margin := time.Duration(0), time.Duration(1<<62)
	learned = slices.DeleteFunc(learned, time.Time.IsZero)
	if len(learned) == 0 {
		learned = []time.Time{began}
	}
	for _, at := range learned {
		late = max(late, at.Sub(start))
		margin = min(margin, start.Sub(at))
	}
	first, last := slices.MinFunc(learned, time.Time.Compare), slices.MaxFunc(learned, time.Time.Compare)
	queries, rows := counter.queries.Load()-q0, counter.rows.Load()-r0
	b.ReportMetric(float64(queries), "queries")
	b.ReportMetric(float64(queries)/waited.Seconds(), "queries/s")
	b.ReportMetric(float64(rows), "rows-read")
	b.ReportMetric(float64(rows)/waited.Seconds(), "rows/s")
	b.ReportMetric(float64(queries)/float64(writers), "queries/writer")
	b.ReportMetric(float64(rows)/float64(writers), "rows/writer")
	b.ReportMetric(float64(counter.errors.Load()-e0), "query-errors")
	if first := counter.firstErr.Load(); first != nil {
		b.Logf("first query error: %s", first)
	}
	b.ReportMetric(float64(max(late, 0).Milliseconds()), "max-late-ms")
	b.ReportMetric(float64(margin.Milliseconds()), "min-margin-ms")
	b.ReportMetric(float64(last.Sub(first).Milliseconds()), "release-spread-ms")
	b.ReportMetric(waited.Seconds(), "s-waited")
}
