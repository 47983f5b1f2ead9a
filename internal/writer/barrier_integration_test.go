package writer_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/writer"
)

// A writer whose peers never arrive gives up at the barrier timeout and says how many it saw.
func TestBarrierTimeout(t *testing.T) {
	c := cluster(t)
	s := spec("it_barrier", nil)
	setUp(t, c, s)
	sum, err := writer.Run(context.Background(), writer.Config{
		Spec: s, Conn: connOptions(c), RunID: "lonely", Index: 0, Writers: 3, BarrierTimeout: 2 * time.Second,
	})
	want := "start barrier: saw 1 of 3 writers, and none more for 2s"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if sum.Error != want {
		t.Errorf("summary error %q, want %q", sum.Error, want)
	}
}

// A writer told at the barrier that another of its process failed before arriving gives up at
// once, whatever its timeout, and says why (cassbench run's in-process writers).
func TestBarrierGivesUpWhenTold(t *testing.T) {
	c := cluster(t)
	s := spec("it_barrier_giveup", nil)
	setUp(t, c, s)
	failed := make(chan struct{})
	time.AfterFunc(time.Second, func() { close(failed) })
	began := time.Now()
	_, err := writer.Run(context.Background(), writer.Config{
		Spec: s, Conn: connOptions(c), RunID: "giving-up", Index: 0, Writers: 2, BarrierTimeout: 10 * time.Minute,
		GiveUp: func() error {
			select {
			case <-failed:
				return errors.New("writer 1 failed before the start: connecting: refused")
			default:
				return nil
			}
		},
	})
	want := "start barrier: saw 1 of 2 writers, and gave up: writer 1 failed before the start: connecting: refused"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if took := time.Since(began); took > time.Minute {
		t.Errorf("gave up %s after the start, with the other writer's failure known after 1s", took)
	}
}

// Writers that keep arriving are waited for, however long they take all together: the timeout
// is the longest wait for the next one. Here the last arrives 3 s after the first, with a
// timeout of 2 s (48 writers connecting to two busy nodes took minutes in CI).
func TestBarrierWaitsWhileWritersArrive(t *testing.T) {
	c := cluster(t)
	s := spec("it_barrier_arriving", nil)
	setUp(t, c, s)
	session, err := cql.Connect(connOptions(c))
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	const writers = 3
	const gap = 1500 * time.Millisecond
	starts := make([]time.Time, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range int32(writers) {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * gap)
			starts[i], errs[i] = writer.Barrier{
				Session: session, Keyspace: s.Schema.Keyspace, Run: "arriving", Index: i, Writers: writers,
				Consistency: writer.BarrierConsistency(s.Schema.Replication.Factor), Timeout: 2 * time.Second,
			}.Wait(context.Background())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		if !starts[i].Equal(starts[0]) {
			t.Errorf("writer %d starts at %s, writer 0 at %s", i, starts[i], starts[0])
		}
	}
}
