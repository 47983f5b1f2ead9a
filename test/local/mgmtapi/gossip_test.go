package mgmtapi

import (
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEndpointsFromGossip(t *testing.T) {
	rows := []map[string]any{
		{ // a peer, as gocql's MapScan gives a row of system_views.gossip_info
			"address": net.ParseIP("127.0.0.2"), "port": 7000, "hostname": "localhost", "generation": 1700000001, "heartbeat": 40,
			"status": "LEAVING,-3074457345618258603", "status_version": 31, "load": "2.1234E7", "load_version": 39,
			"dc": "dc1", "rack": "rack1", "host_id": "b2", "release_version": "5.0.9", "release_version_version": 4,
			"schema": "s1", "schema_version": 12, "net_version": "12", "net_version_version": 2,
			"native_address_and_port": "127.0.0.2:9042", "rpc_ready": "true", "severity": nil, "disk_usage": nil,
		},
		{
			"address": net.ParseIP("127.0.0.1"), "port": 7000, "hostname": "localhost", "generation": 1700000000, "heartbeat": 99,
			"status_with_port": "NORMAL,-9223372036854775808", "load": "123456.0", "dc": "dc1", "rack": "rack1", "host_id": "a1",
		},
	}
	var asked []string
	alive := func(addr string, gen, hb int) bool {
		asked = append(asked, addr)
		return addr == "127.0.0.2" && gen == 1700000001 && hb == 40
	}
	got := EndpointsFromGossip(rows, "127.0.0.1", "org.apache.cassandra.dht.Murmur3Partitioner", "bench", alive)
	want := []map[string]string{
		{
			"STATUS_WITH_PORT": "NORMAL,-9223372036854775808", "LOAD": "123456.0", "DC": "dc1", "RACK": "rack1", "HOST_ID": "a1",
			"ENDPOINT_IP": "127.0.0.1", "IS_ALIVE": "true", "IS_LOCAL": "true",
			"PARTITIONER": "org.apache.cassandra.dht.Murmur3Partitioner", "CLUSTER_NAME": "bench",
		},
		{
			"STATUS": "LEAVING,-3074457345618258603", "LOAD": "2.1234E7", "DC": "dc1", "RACK": "rack1", "HOST_ID": "b2",
			"RELEASE_VERSION": "5.0.9", "SCHEMA": "s1", "NET_VERSION": "12", "NATIVE_ADDRESS_AND_PORT": "127.0.0.2:9042", "RPC_READY": "true",
			"ENDPOINT_IP": "127.0.0.2", "IS_ALIVE": "true", "IS_LOCAL": "false",
			"PARTITIONER": "org.apache.cassandra.dht.Murmur3Partitioner", "CLUSTER_NAME": "bench",
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("endpoints (-want +got):\n%s", d)
	}
	// The local node is alive by definition: it answered the query.
	if d := cmp.Diff([]string{"127.0.0.2"}, asked); d != "" {
		t.Errorf("liveness asked for (-want +got):\n%s", d)
	}
}

func TestLiveness(t *testing.T) {
	now := time.Unix(1000, 0)
	l := &Liveness{Window: 10 * time.Second, Now: func() time.Time { return now }}
	steps := []struct {
		advance   time.Duration
		addr      string
		gen, beat int
		want      bool
	}{
		{0, "a", 1, 10, true},                // first seen: benefit of the doubt
		{5 * time.Second, "a", 1, 15, true},  // beating
		{9 * time.Second, "a", 1, 15, true},  // silent 9 s: not yet convicted
		{2 * time.Second, "a", 1, 15, false}, // silent 11 s: dead
		{1 * time.Second, "a", 2, 1, true},   // restarted: new generation
		{0, "b", 7, 7, true},                 // another endpoint is judged apart
		{15 * time.Second, "b", 7, 7, false}, // silent since first seen
		{0, "a", 2, 1, false},                // and a, silent 15 s too
		{0, "a", 2, 2, true},                 // until it beats again
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := l.Alive(s.addr, s.gen, s.beat); got != s.want {
			t.Errorf("step %d (%s gen %d beat %d): alive %t, want %t", i, s.addr, s.gen, s.beat, got, s.want)
		}
	}
}

func TestCheckConsistency(t *testing.T) {
	ep := func(ip, dc, status string, alive, local bool) map[string]string {
		b := map[bool]string{true: "true", false: "false"}
		return map[string]string{"ENDPOINT_IP": ip, "DC": dc, "STATUS": status, "IS_ALIVE": b[alive], "IS_LOCAL": b[local]}
	}
	three := []map[string]string{
		ep("10.0.0.1", "dc1", "NORMAL,1", true, true),
		ep("10.0.0.2", "dc1", "NORMAL,2", true, false),
		ep("10.0.0.3", "dc1", "NORMAL,3", false, false),
	}
	cases := map[string]struct {
		cl        string
		rf        int
		endpoints []map[string]string
		want      map[string][]string
		err       string
	}{
		"quorum of 3 with one dead":          {cl: "LOCAL_QUORUM", rf: 3, endpoints: three, want: map[string][]string{}},
		"rf 1 with one dead":                 {cl: "LOCAL_QUORUM", rf: 1, endpoints: three, want: map[string][]string{"[dc1]": {"10.0.0.3"}}},
		"ALL with one dead":                  {cl: "ALL", rf: 3, endpoints: three, want: map[string][]string{"[dc1]": {"10.0.0.3"}}},
		"LOCAL_ONE with one dead":            {cl: "LOCAL_ONE", rf: 1, endpoints: three[:2], want: map[string][]string{}},
		"too few nodes":                      {cl: "LOCAL_QUORUM", rf: 3, endpoints: three[:1], want: map[string][]string{"[dc1]": {"2 replicas required, but only 1 nodes in the ring"}}},
		"leaving node is not a replica here": {cl: "LOCAL_QUORUM", rf: 1, endpoints: append(three[:2:2], ep("10.0.0.3", "dc1", "LEAVING,3", false, false)), want: map[string][]string{}},
		"other datacenter's dead node":       {cl: "LOCAL_QUORUM", rf: 1, endpoints: append(three[:2:2], ep("10.1.0.1", "dc2", "NORMAL,4", false, false)), want: map[string][]string{}},
		"EACH_QUORUM sees it":                {cl: "EACH_QUORUM", rf: 1, endpoints: append(three[:2:2], ep("10.1.0.1", "dc2", "NORMAL,4", false, false)), want: map[string][]string{"[dc2]": {"10.1.0.1"}}},
		"unknown level":                      {cl: "MOST", rf: 1, endpoints: three, err: "No enum constant org.apache.cassandra.db.ConsistencyLevel.MOST"},
		"rf 0":                               {cl: "LOCAL_QUORUM", rf: 0, endpoints: three, err: "rf_per_dc must be > 0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := checkConsistency(tc.cl, tc.rf, tc.endpoints)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

// TestSeedsFrom reads the seeds out of what Cassandra 5.0.9's nodetool reloadseeds prints
// (seen on node 2 of the local cluster).
func TestSeedsFrom(t *testing.T) {
	got := seedsFrom("Updated seed node IP list, excluding the current node's IP: /127.0.0.1:7000 /127.0.0.3:7000\n")
	if d := cmp.Diff([]string{"127.0.0.1", "127.0.0.3"}, got); d != "" {
		t.Errorf("seeds (-want +got):\n%s", d)
	}
	if got := seedsFrom("Seed node list is empty\n"); len(got) != 0 {
		t.Errorf("seeds of an empty list: %v", got)
	}
}
