package replag

import (
	"context"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/writer"
)

// twoDCs is a private cluster of dc1 and dc2 (one node each) with a keyspace replicated to
// both, and a session local to each.
func twoDCs(t *testing.T) (*cassandra.Cluster, map[string]*gocql.Session) {
	t.Helper()
	c := cassandra.Private(t, 70, cassandra.Options{Nodes: 2, Datacenters: 2})
	sessions := map[string]*gocql.Session{}
	for dc, hosts := range c.Datacenters {
		s, err := Connect(cql.Options{Hosts: hosts, Port: c.Port, LocalDatacenter: dc, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		sessions[dc] = s
	}
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS lag WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}",
		"CREATE TABLE IF NOT EXISTS lag.kv (k int PRIMARY KEY, v text)",
	} {
		if err := sessions["dc1"].Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return c, sessions
}

// clocks measures the clock of each session's side against Cassandra's, as a writer does.
func clocks(t *testing.T, sessions map[string]*gocql.Session) map[string]writer.ClockOffset {
	t.Helper()
	out := map[string]writer.ClockOffset{}
	for dc, s := range sessions {
		c, err := writer.MeasureOffset(context.Background(), s, time.Now, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		out[dc] = c
	}
	return out
}

// observe writes n keys from first at LOCAL_QUORUM in dc1, handing each to an observer in dc2
// as it is acknowledged, and returns what the observer saw.
func observe(t *testing.T, sessions map[string]*gocql.Session, clocks map[string]writer.ClockOffset, first, n int, limit time.Duration) Result {
	t.Helper()
	ctx := context.Background()
	o, err := Start(ctx, Config{
		Session: sessions["dc2"], Query: "SELECT k FROM lag.kv WHERE k = ?",
		Poll: 5 * time.Millisecond, Limit: limit, Timeout: time.Second, Readers: 4, Clock: clocks["dc2"],
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := first; k < first+n; k++ {
		if err := sessions["dc1"].Query("INSERT INTO lag.kv (k, v) VALUES (?, 'x')", k).Consistency(gocql.LocalQuorum).Exec(); err != nil {
			t.Fatalf("write %d at LOCAL_QUORUM in dc1: %v", k, err)
		}
		o.Expect(Key{Values: []any{k}, Acked: time.Now(), Clock: clocks["dc1"]})
	}
	return o.Finish(ctx)
}

// With both datacenters up every key written in dc1 is seen in dc2 and its time to
// visibility is in the distribution; with dc2's node stopped none is seen, each is censored
// rather than given a lag, and dc1's node keeps hints for the node it could not reach.
func TestReplicationLagAcrossTwoDatacenters(t *testing.T) {
	c, sessions := twoDCs(t)
	const n = 200

	// A write whose dc2 replica missed it (dropped on a busy node) reaches dc2 as a hint,
	// dispatched every 10 s: the limit leaves room for that; Finish returns once all are seen.
	clocks := clocks(t, sessions)
	up := observe(t, sessions, clocks, 0, n, time.Minute)
	t.Logf("both up: seen %d, censored %d, read errors %d", up.Seen, up.Censored, up.ReadErrors)
	if up.Seen != n || up.Censored != 0 || up.Dropped != 0 || up.Lag.Count() != n {
		t.Fatalf("both up: seen %d, censored %d, dropped %d, lags %d; want all %d seen", up.Seen, up.Censored, up.Dropped, up.Lag.Count(), n)
	}
	if up.ClockErrorMicros <= 0 || up.MaxGapMicros <= 0 {
		t.Errorf("both up: bound parts clock error %d µs, gap %d µs; want both measured", up.ClockErrorMicros, up.MaxGapMicros)
	}
	t.Logf("both up: p50 %.0f µs, p99 %.0f µs, max %.0f µs, bound %d µs (gap %d + clocks %d), read errors %d",
		up.Lag.Quantile(0.5), up.Lag.Quantile(0.99), up.Lag.Max(), up.Bound(), up.MaxGapMicros, up.ClockErrorMicros, up.ReadErrors)

	hintsBefore := c.HintBytes(t, 1)
	c.StopNode(t, 2)
	down := observe(t, sessions, clocks, n, n, 2*time.Second)
	if down.Seen != 0 || down.Censored != n || down.Lag.Count() != 0 {
		t.Errorf("dc2 down: seen %d, censored %d, lags %d; want all %d censored and no lag", down.Seen, down.Censored, down.Lag.Count(), n)
	}
	if down.ReadErrors == 0 {
		t.Errorf("dc2 down: no read failed, yet its only node is stopped")
	}
	// Hints are written to their file every hints_flush_period (10 s).
	deadline := time.Now().Add(time.Minute)
	for c.HintBytes(t, 1) <= hintsBefore {
		if time.Now().After(deadline) {
			t.Fatalf("dc1's node holds %d bytes of hints, as before dc2's node stopped", hintsBefore)
		}
		time.Sleep(time.Second)
	}
}
