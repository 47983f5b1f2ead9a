package writer_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/writer"
)

// BenchmarkEndBarrierThousandWriters measures the end barrier of a run of 1,000 writers
// against the local nodes: every writer records its end over CASSBENCH_BARRIER_SPREAD
// (default 2s: writers of a run by duration end within their drain of each other) and counts
// its group once, and one writer per node (CASSBENCH_END_WAITERS, default 2; 64 in a 64-node
// datacenter) waits for the last end before it reads its nodes for the last time. It reports
// the barrier's CQL load per writer and how long after the last end was recorded the waiters
// were released. Ends are written and read at ONE, so a waiter also counts every 2 s in case
// the writer that completed the barrier missed a row another replica acknowledged. Run it
// with -benchtime=1x.
//
// Measured here (2 local nodes, 2 shared cores, 1,000 writers ending over 2 s; the barrier
// before the groups, where every waiter read every end each poll, run from the same file at
// its commit, alternated with the groups):
//
//	                      waiters  queries/writer  rows/writer  released after the last end
//	every end each poll        2        1.0          9.1-9.5        27-120 ms
//	groups of √N               2        2.1          17.0          107-215 ms
//	every end each poll       64        1.6          306-308       160-273 ms
//	groups of √N              64        2.7          17.1-17.4     315-333 ms
//
// With two waiters the groups cost a writer one more query and 8 more rows; with a waiter per
// node of a 64-node datacenter they read 18 times fewer rows. Waiters learn of the last end
// about 0.1-0.2 s later: the writer that completes the barrier counts its group and the
// groups' marks before it writes the decision, and waiters poll it every 125-375 ms.
func BenchmarkEndBarrierThousandWriters(b *testing.B) {
	writers, spread := benchWriters(2 * time.Second)
	sessions, counter, keyspace := barrierBench(b)
	for i := 0; b.Loop(); i++ {
		measureEnd(b, sessions, counter, keyspace, fmt.Sprintf("bench-end-%d-%d", time.Now().UnixNano(), i), writers, spread)
	}
}

func measureEnd(b *testing.B, sessions []*gocql.Session, counter *queryCounter, keyspace, run string, writers int, spread time.Duration) {
	waiters := 2
	if n, err := strconv.Atoi(os.Getenv("CASSBENCH_END_WAITERS")); err == nil && n > 0 {
		waiters = min(n, writers)
	}
	q0, r0 := counter.queries.Load(), counter.rows.Load()
	var mu sync.Mutex
	var lastEnd time.Time
	released := make([]time.Time, waiters)
	failed := 0
	var wg sync.WaitGroup
	began := time.Now()
	for i := range writers {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * spread / time.Duration(writers))
			wait := i < waiters
			err := writer.Barrier{Session: sessions[i%len(sessions)], Keyspace: keyspace, Run: run, Index: int32(i),
				Writers: int32(writers), Timeout: time.Minute}.End(context.Background(), wait)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if failed++; failed == 1 {
					b.Logf("writer %d: %v", i, err)
				}
				return
			}
			if wait {
				released[i] = time.Now()
			} else if now := time.Now(); now.After(lastEnd) {
				lastEnd = now
			}
		})
	}
	wg.Wait()
	waited := time.Since(began)
	late := time.Duration(0)
	for _, at := range released {
		if !at.IsZero() {
			late = max(late, at.Sub(lastEnd))
		}
	}
	queries, rows := counter.queries.Load()-q0, counter.rows.Load()-r0
	b.ReportMetric(float64(failed), "writers-gave-up")
	b.ReportMetric(float64(queries)/float64(writers), "queries/writer")
	b.ReportMetric(float64(rows)/float64(writers), "rows/writer")
	b.ReportMetric(float64(late.Milliseconds()), "release-after-last-end-ms")
	b.ReportMetric(waited.Seconds(), "s-waited")
}
