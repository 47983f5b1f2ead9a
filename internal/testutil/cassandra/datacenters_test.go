package cassandra

import (
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/cql"
)

// A cluster of two datacenters is one ring in which each node reports the datacenter it was
// placed in, a NetworkTopologyStrategy keyspace keeps a replica in each, and a write
// acknowledged by EACH_QUORUM in dc1 is read at LOCAL_ONE from dc2's own replica.
func TestTwoDatacentersOfOneCluster(t *testing.T) {
	c := Private(t, 70, Options{Nodes: 2, Datacenters: 2})
	want := map[string][]string{"dc1": {c.Hosts[0]}, "dc2": {c.Hosts[1]}}
	if diff := cmp.Diff(want, c.Datacenters); diff != "" {
		t.Fatalf("datacenters (-want +got):\n%s", diff)
	}
	sessions := map[string]*gocql.Session{}
	for dc, hosts := range c.Datacenters {
		s, err := cql.Connect(cql.Options{Hosts: hosts, Port: c.Port, LocalDatacenter: dc, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions[dc] = s
		var local string
		if err := s.Query("SELECT data_center FROM system.local").Scan(&local); err != nil {
			t.Fatal(err)
		}
		var peer string
		if err := s.Query("SELECT data_center FROM system.peers_v2").Scan(&peer); err != nil {
			t.Fatal(err)
		}
		if local != dc || peer == dc || peer == "" {
			t.Errorf("node %s says it is in %q and its peer in %q; want %s and the other datacenter", hosts[0], local, peer, dc)
		}
	}
	ddl := []string{
		"CREATE KEYSPACE IF NOT EXISTS twodc WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}",
		"CREATE TABLE IF NOT EXISTS twodc.kv (k int PRIMARY KEY, v text)",
	}
	for _, q := range ddl {
		if err := sessions["dc1"].Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := sessions["dc1"].Query("INSERT INTO twodc.kv (k, v) VALUES (1, 'one')").Consistency(gocql.EachQuorum).Exec(); err != nil {
		t.Fatalf("write at EACH_QUORUM: %v", err)
	}
	var v string
	if err := sessions["dc2"].Query("SELECT v FROM twodc.kv WHERE k = 1").Consistency(gocql.LocalOne).Scan(&v); err != nil || v != "one" {
		t.Errorf("read at LOCAL_ONE in dc2: %q, %v; want one", v, err)
	}
}
