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
type queryCounter struct{ queries, rows, errors atomic.Int64 }

func (q *queryCounter) ObserveQuery(_ context.Context, o gocql.ObservedQuery) {
	q.queries.Add(1)
	q.rows.Add(int64(o.Rows))
	if o.Err != nil {
		q.errors.Add(1)
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
// What bounds it: every waiting writer reads the run's whole barrier partition (one row per
// writer that arrived) every poll (250 ms), at QUORUM, from the RF replicas that own that one
// partition whatever the datacenter's size. That is N/0.25 s queries and up to 4·N² rows read
// per second at N writers: 4,000 queries and 4 million rows a second at 1,000, on 2 or 3 nodes.
// Writers that give up are counted in writers-gave-up.
//
// Measured here (2 local nodes, 2 shared cores at a load average of about 30): 200 writers
// over 5 s: 922 queries, 96k rows read, every writer knew the start 1.1 s or more ahead. 1,000
// writers over 10 s: 4,042-4,768 queries, 2.0-2.6 million rows read, none gave up, but the last
// writers learned the start 3.8-4.8 s after it, past the 2 s lead; on a machine this loaded the
// client's own goroutines account for part of that, and it was not separated.
func BenchmarkBarrierThousandWriters(b *testing.B) {
	writers := 1000
	if n, err := strconv.Atoi(os.Getenv("CASSBENCH_BARRIER_WRITERS")); err == nil && n > 0 {
		writers = n
	}
	spread := 10 * time.Second
	if d, err := time.ParseDuration(os.Getenv("CASSBENCH_BARRIER_SPREAD")); err == nil {
		spread = d
	}
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
		defer s.Close()
		sessions = append(sessions, s)
	}
	for i := 0; b.Loop(); i++ {
		measureBarrier(b, sessions, counter, keyspace, fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i), writers, spread)
	}
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
	b.ReportMetric(float64(counter.errors.Load()-e0), "query-errors")
	b.ReportMetric(float64(max(late, 0).Milliseconds()), "max-late-ms")
	b.ReportMetric(float64(margin.Milliseconds()), "min-margin-ms")
	b.ReportMetric(float64(last.Sub(first).Milliseconds()), "release-spread-ms")
	b.ReportMetric(waited.Seconds(), "s-waited")
}
