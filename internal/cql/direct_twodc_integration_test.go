package cql

import (
	"errors"
	"strconv"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// nodeCount reads one node's own count of writes to route2dc.<table> from its virtual table view
// (system_views.coordinator_write_latency: requests it coordinated; local_write_latency:
// mutations it applied as a replica), through a session that talks to that node alone.
func nodeCount(t *testing.T, host string, port int, view, table string) int64 {
	t.Helper()
	c := gocql.NewCluster(host)
	c.Port, c.Timeout, c.ConnectTimeout = port, 20*time.Second, 20*time.Second
	c.HostFilter = gocql.WhiteListHostFilter(host)
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connecting to %s alone: %v", host, err)
	}
	defer s.Close()
	var n int64
	err = s.Query(`SELECT count FROM system_views.`+view+` WHERE keyspace_name = 'route2dc' AND table_name = ?`, table).Scan(&n)
	if err != nil && !errors.Is(err, gocql.ErrNotFound) {
		t.Fatalf("%s's %s: %v", host, view, err)
	}
	return n
}

// A run sends every insert directly to its local datacenter's replica of the key: on a
// cluster of two datacenters with a replica of each key in each (NTS dc1:1, dc2:1), a run
// local to dc1 and then one local to dc2 each had every insert coordinated by its own
// datacenter's node and none by the other's, by the nodes' own counts, while both nodes
// applied every insert as replicas. (The local cluster gives each datacenter the whole ring,
// dc2's tokens just after dc1's, so dc1's node is the primary owner of nearly every key: the
// run local to dc2 is the one that shows the local datacenter decides.)
func TestDirectStaysInTheLocalDatacenter(t *testing.T) {
	c := cassandra.Private(t, 90, cassandra.Options{Nodes: 2, Datacenters: 2})
	nodes := map[string]string{"dc1": c.Datacenters["dc1"][0], "dc2": c.Datacenters["dc2"][0]}
	const n = 400
	for local, other := range map[string]string{"dc1": "dc2", "dc2": "dc1"} {
		table := "t_" + local
		insertDirectly(t, c, nodes[local], local, table, n)
		if got := nodeCount(t, nodes[local], c.Port, "coordinator_write_latency", table); got != n {
			t.Errorf("run local to %s: its node %s coordinated %d writes; want all %d inserts", local, nodes[local], got, n)
		}
		if got := nodeCount(t, nodes[other], c.Port, "coordinator_write_latency", table); got != 0 {
			t.Errorf("run local to %s: %s's node %s coordinated %d writes; want none: inserts left the local datacenter", local, other, nodes[other], got)
		}
		// Both hold a replica of every key: the other datacenter's node applies each insert
		// (asynchronously at LOCAL_ONE), reached through the local coordinator, not the client.
		deadline := time.Now().Add(time.Minute)
		for {
			got1, got2 := nodeCount(t, nodes[local], c.Port, "local_write_latency", table), nodeCount(t, nodes[other], c.Port, "local_write_latency", table)
			if got1 == n && got2 == n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run local to %s: replica writes applied: %s %d, %s %d; want %d each", local, local, got1, other, got2, n)
			}
			time.Sleep(time.Second)
		}
	}
}

// insertDirectly creates route2dc.<table> and inserts n rows into it through a Direct whose
// local datacenter is local, connected to host; every insert must go directly.
func insertDirectly(t *testing.T, c *cassandra.Cluster, host, local, table string, n int64) {
	t.Helper()
	o := Options{Hosts: []string{host}, Port: c.Port, LocalDatacenter: local, Timeout: 20 * time.Second, NumConns: 1}
	s, x, err := ConnectDirect(o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { x.Close(); s.Close() }()
	for _, stmt := range []string{
		`CREATE KEYSPACE IF NOT EXISTS route2dc WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}`,
		`CREATE TABLE route2dc.` + table + ` (k bigint PRIMARY KEY, v blob)`,
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
		t.Fatal(err)
	}
	x.Warm(t.Context())
	st, err := x.Prepare("route2dc", `INSERT INTO route2dc.`+table+` (k, v) VALUES (?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	ds := NewDeadlines(20 * time.Second)
	defer ds.Stop()
	dl, req, r := ds.New(), st.NewRequest(gocql.LocalOne, 0, 2), NewRoute()
	routable(t, x, st, r)
	for k := range n {
		key := bigintKey(k)
		r.SetKey(key)
		req.Values[0], req.Values[1] = key, []byte("value-"+strconv.FormatInt(k, 10))
		dl.Arm()
		err := req.Exec(dl, r)
		dl.Disarm()
		if why, notSent := NotSent(err); notSent {
			t.Fatalf("run local to %s: insert %d was not sent directly: %s (%v)", local, k, why, x.LastSetupError())
		}
		if err != nil {
			t.Fatalf("run local to %s: insert %d: %v", local, k, err)
		}
	}
}
