package cql

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// node is a scripted ring's node: its datacenter and rack.
type node struct{ dc, rack string }

// scriptedRing gives nodes tokens tokens each, interleaved (node i holds tokens
// k*len(nodes)+i), as the local clusters place theirs, and returns the hosts and a policy
// holding the ring. Node i is 127.0.0.(i+1).
func scriptedRing(t *testing.T, nodes []node, tokens int) ([]*gocql.HostInfo, *routedPolicy) {
	t.Helper()
	n := len(nodes) * tokens
	step := uint64(math.MaxUint64) / uint64(n)
	var hosts []*gocql.HostInfo
	for i, nd := range nodes {
		var toks []string
		for k := range tokens {
			toks = append(toks, strconv.FormatInt(math.MinInt64+int64(uint64(k*len(nodes)+i)*step), 10))
		}
		h, err := gocql.NewTestHostInfoFromRow(map[string]any{
			"rpc_address": fmt.Sprintf("127.0.0.%d", i+1), "data_center": nd.dc, "rack": nd.rack,
			"host_id": gocql.MustRandomUUID().String(), "tokens": toks,
		})
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, h)
	}
	return hosts, newPolicy(gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()), hosts)
}

// replicasOf is the hosts of a replica table's range.
func replicasOf(ring *tokenRing, tab *replicaTable, i int) []*gocql.HostInfo {
	var out []*gocql.HostInfo
	for _, j := range tab.ranges[i] {
		out = append(out, ring.hosts[j])
	}
	return out
}

// naturalReplicas is what a node computes for a ring without racks, written as plainly as
// it can be: walking clockwise from range i, the first distinct hosts of each datacenter up
// to its factor (or its node count).
func naturalReplicas(ring *tokenRing, rf map[string]int, i int) []*gocql.HostInfo {
	nodes := map[string]map[*gocql.HostInfo]bool{}
	for _, h := range ring.hosts {
		if nodes[h.DataCenter()] == nil {
			nodes[h.DataCenter()] = map[*gocql.HostInfo]bool{}
		}
		nodes[h.DataCenter()][h] = true
	}
	var out []*gocql.HostInfo
	got := map[string]int{}
	for k := range ring.hosts {
		h := ring.hosts[(i+k)%len(ring.hosts)]
		dc := h.DataCenter()
		if got[dc] < min(rf[dc], len(nodes[dc])) && !slices.Contains(out, h) {
			out = append(out, h)
			got[dc]++
		}
	}
	return out
}

func TestReplicasSimpleStrategy(t *testing.T) {
	_, p := scriptedRing(t, []node{{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}}, 8)
	ring := p.ring.Load()
	for _, rf := range []int{1, 2, 3, 5} {
		tab := ring.replicas(placement{simple: true, rf: rf}, "")
		for i := range ring.hosts {
			got := replicasOf(ring, tab, i)
			want := naturalReplicas(ring, map[string]int{"dc1": rf}, i)
			if !slices.Equal(got, want) {
				t.Fatalf("RF %d, range %d: replicas %v, want %v", rf, i, got, want)
			}
			if got[0] != ring.hosts[i] {
				t.Fatalf("RF %d, range %d: the primary owner %v is not first in %v", rf, i, ring.hosts[i], got)
			}
		}
	}
}

// Two datacenters, nodes alternating between them as the local cluster places them: each
// range has one replica in each datacenter, and with a local datacenter only its replica.
func TestReplicasNetworkTopologyTwoDatacenters(t *testing.T) {
	_, p := scriptedRing(t, []node{{"dc1", "r1"}, {"dc2", "r1"}, {"dc1", "r1"}, {"dc2", "r1"}}, 4)
	ring := p.ring.Load()
	rf := map[string]int{"dc1": 1, "dc2": 1}
	all := ring.replicas(placement{dcs: rf}, "")
	local := ring.replicas(placement{dcs: rf}, "dc1")
	for i := range ring.hosts {
		want := naturalReplicas(ring, rf, i)
		if got := replicasOf(ring, all, i); !slices.Equal(got, want) {
			t.Fatalf("range %d: replicas %v, want %v", i, got, want)
		}
		got := replicasOf(ring, local, i)
		if len(got) != 1 || got[0].DataCenter() != "dc1" || !slices.Contains(want, got[0]) {
			t.Fatalf("range %d, local dc1: %v; want dc1's one replica of %v", i, got, want)
		}
	}
	// A keyspace with no replica in dc1 leaves a dc1 run nothing to send to directly.
	none := ring.replicas(placement{dcs: map[string]int{"dc2": 2}}, "dc1")
	for i := range ring.hosts {
		if len(none.ranges[i]) != 0 {
			t.Fatalf("range %d: %v for a keyspace without dc1 replicas", i, replicasOf(ring, none, i))
		}
	}
}

// Racks: a datacenter takes a node of a rack it has not used before one of a rack it has,
// unless it has more factor than racks (Cassandra's acceptableRackRepeats).
func TestReplicasSpreadOverRacks(t *testing.T) {
	// Ring order A(r1) B(r1) C(r2) D(r2), one token each.
	hosts, p := scriptedRing(t, []node{{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r2"}, {"dc1", "r2"}}, 1)
	a, b, c, d := hosts[0], hosts[1], hosts[2], hosts[3]
	ring := p.ring.Load()
	for _, tc := range []struct {
		rf   int
		want [][]*gocql.HostInfo
	}{
		{2, [][]*gocql.HostInfo{{a, c}, {b, c}, {c, a}, {d, a}}},
		{3, [][]*gocql.HostInfo{{a, b, c}, {b, c, d}, {c, d, a}, {d, a, b}}},
	} {
		tab := ring.replicas(placement{dcs: map[string]int{"dc1": tc.rf}}, "")
		for i, want := range tc.want {
			if got := replicasOf(ring, tab, i); !slices.Equal(got, want) {
				t.Errorf("RF %d, range %d: %v, want %v", tc.rf, i, got, want)
			}
		}
	}
	// Ring order A(r1) B(r1) C(r1) D(r2) at RF 3: one repeat of r1 is allowed (3 - 2 racks),
	// so range 0 takes A, B and then D, not C.
	hosts, p = scriptedRing(t, []node{{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r2"}}, 1)
	ring = p.ring.Load()
	tab := ring.replicas(placement{dcs: map[string]int{"dc1": 3}}, "")
	if got, want := replicasOf(ring, tab, 0), []*gocql.HostInfo{hosts[0], hosts[1], hosts[3]}; !slices.Equal(got, want) {
		t.Errorf("RF 3 over racks r1 r1 r1 r2, range 0: %v, want %v", got, want)
	}
}

func TestPlacementOf(t *testing.T) {
	ks := func(class string, opts map[string]any) *gocql.KeyspaceMetadata {
		return &gocql.KeyspaceMetadata{Name: "ks", StrategyClass: class, StrategyOptions: opts}
	}
	pl, err := placementOf(ks("org.apache.cassandra.locator.SimpleStrategy", map[string]any{"replication_factor": "3"}))
	if err != nil || !pl.simple || pl.rf != 3 {
		t.Errorf("SimpleStrategy 3: %+v, %v", pl, err)
	}
	pl, err = placementOf(ks("org.apache.cassandra.locator.NetworkTopologyStrategy", map[string]any{"class": "x", "dc1": "3/1", "dc2": "1"}))
	if err != nil || pl.simple || pl.dcs["dc1"] != 3 || pl.dcs["dc2"] != 1 || len(pl.dcs) != 2 {
		t.Errorf("NetworkTopologyStrategy dc1 3/1, dc2 1: %+v, %v", pl, err)
	}
	for name, k := range map[string]*gocql.KeyspaceMetadata{
		"local strategy": ks("org.apache.cassandra.locator.LocalStrategy", nil),
		"bad factor":     ks("SimpleStrategy", map[string]any{"replication_factor": "three"}),
		"negative":       ks("NetworkTopologyStrategy", map[string]any{"dc1": "-1"}),
	} {
		if _, err := placementOf(k); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// routingDirect is a Direct on a scripted ring whose keyspace ks has replication opts; its
// pools hold a connection (not dialled: pick only takes it) for every node but those of down,
// whose last dial failed.
func routingDirect(t *testing.T, nodes []node, local string, opts map[string]any, down ...int) (*Direct, []*gocql.HostInfo, *Statement) {
	t.Helper()
	hosts, policy := scriptedRing(t, nodes, 8)
	x := &Direct{
		policy: policy, dialer: &hostDialer{ioTimeout: time.Minute}, setup: 10 * time.Second, conns: 2, local: local,
		pools: map[string]*hostPool{},
		meta: func(ks string) (*gocql.KeyspaceMetadata, error) {
			if ks != "ks" {
				return nil, errors.New("no such keyspace")
			}
			return &gocql.KeyspaceMetadata{Name: ks, StrategyClass: opts["class"].(string), StrategyOptions: opts}, nil
		},
	}
	st, err := x.Prepare("ks", "INSERT INTO t (k) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	rp := x.pools4(policy.ring.Load())
	for j, p := range rp.pools {
		h := policy.ring.Load().hosts[j]
		for i := range p.slots {
			p.next[i].Store(math.MaxInt64) // never dialled
			if !slices.Contains(down, slices.Index(hosts, h)) && p.slots[i].Load() == nil {
				p.slots[i].Store(&dconn{addr: p.addr, done: make(chan struct{})})
			}
		}
		if slices.Contains(down, slices.Index(hosts, h)) {
			p.failure.Store(uint32(FallbackDial) + 1)
		}
	}
	return x, hosts, st
}

// addrOf is the connect address of h, as a pool names it.
func addrOf(h *gocql.HostInfo) string { return h.ConnectAddressAndPort() }

func TestPickSendsOnlyToReplicas(t *testing.T) {
	four := []node{{"dc1", "r1"}, {"dc2", "r1"}, {"dc1", "r1"}, {"dc2", "r1"}}
	simple1 := map[string]any{"class": "SimpleStrategy", "replication_factor": "1"}
	nts11 := map[string]any{"class": "NetworkTopologyStrategy", "dc1": "1", "dc2": "1"}
	for _, tc := range []struct {
		name  string
		local string
		opts  map[string]any
		down  []int
		// want returns the address the key's request goes to, "" for none, given its
		// replicas in placement order.
		want func(replicas []*gocql.HostInfo) string
		why  Fallback
	}{
		{"RF 1", "", simple1, nil, func(r []*gocql.HostInfo) string { return addrOf(r[0]) }, 0},
		{"RF 1, owner down", "", simple1, []int{0}, func(r []*gocql.HostInfo) string {
			if addrOf(r[0]) == "127.0.0.1:9042" {
				return ""
			}
			return addrOf(r[0])
		}, FallbackDial},
		{"NTS dc1:1 dc2:1, local dc1", "dc1", nts11, nil, func(r []*gocql.HostInfo) string {
			return addrOf(r[slices.IndexFunc(r, func(h *gocql.HostInfo) bool { return h.DataCenter() == "dc1" })])
		}, 0},
		{"NTS dc1:1 dc2:1, local dc1, a dc1 replica down", "dc1", nts11, []int{0}, func(r []*gocql.HostInfo) string {
			h := r[slices.IndexFunc(r, func(h *gocql.HostInfo) bool { return h.DataCenter() == "dc1" })]
			if addrOf(h) == "127.0.0.1:9042" {
				return "" // not node 3, dc1's other node, which holds no replica of the key
			}
			return addrOf(h)
		}, FallbackDial},
		{"NTS dc1:2, a replica down", "", map[string]any{"class": "NetworkTopologyStrategy", "dc1": "2"}, []int{0}, func(r []*gocql.HostInfo) string {
			if addrOf(r[0]) == "127.0.0.1:9042" {
				return addrOf(r[1])
			}
			return addrOf(r[0])
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, _, st := routingDirect(t, four, tc.local, tc.opts, tc.down...)
			ring := x.policy.ring.Load()
			pl, err := placementOf(&gocql.KeyspaceMetadata{StrategyClass: tc.opts["class"].(string), StrategyOptions: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			all := ring.replicas(pl, "")
			r := NewRoute()
			sent := map[string]int{}
			for k := range int64(2000) {
				r.SetKey(bigintKey(k * 7919))
				replicas := replicasOf(ring, all, ring.owner(r.token))
				want := tc.want(replicas)
				c, why := x.pick(r, st, int(k), 0)
				switch {
				case want == "" && c != nil:
					t.Fatalf("key %d (replicas %v) went to %s; want none", k, replicas, c.addr)
				case want == "" && why != tc.why:
					t.Fatalf("key %d: not sent because %s, want %s", k, why, tc.why)
				case want != "" && (c == nil || c.addr != want):
					t.Fatalf("key %d (replicas %v) went to %v (%s); want %s", k, replicas, c, why, want)
				}
				if c != nil {
					sent[c.addr]++
				}
			}
			if len(sent) == 0 {
				t.Fatal("no key was sent")
			}
		})
	}
}

// A connection out of streams passes the request to the replica's other connection, then to
// the next replica, and says so when none is left.
func TestPickSkipsToTheNextConnection(t *testing.T) {
	x, _, st := routingDirect(t, []node{{"dc1", "r1"}, {"dc1", "r1"}}, "", map[string]any{"class": "SimpleStrategy", "replication_factor": "2"})
	ring := x.policy.ring.Load()
	r := NewRoute()
	r.SetKey(bigintKey(42))
	var got []*dconn
	for skip := 0; ; skip++ {
		c, _ := x.pick(r, st, 0, skip)
		if c == nil {
			break
		}
		got = append(got, c)
	}
	owner := ring.owner(r.token)
	first := x.cur.Load().pools[owner]
	if len(got) != 4 || got[0] != first.slots[0].Load() || got[1] != first.slots[1].Load() || got[2].addr == first.addr || got[3].addr != got[2].addr || got[2] == got[3] {
		t.Fatalf("connections in order: %v; want the owner's two, then the other replica's two", got)
	}
}

// A keyspace whose replication cannot be read sends nothing directly, and says why.
func TestPickWithoutReplication(t *testing.T) {
	x, _, _ := routingDirect(t, []node{{"dc1", "r1"}}, "", map[string]any{"class": "SimpleStrategy", "replication_factor": "1"})
	st, err := x.Prepare("other", "INSERT INTO other.t (k) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRoute()
	r.SetKey(bigintKey(1))
	if c, why := x.pick(r, st, 0, 0); c != nil || why != FallbackNoRoute {
		t.Fatalf("pick for an unreadable keyspace: %v, %s", c, why)
	}
	if err := x.LastSetupError(); err == nil {
		t.Error("no error says why the keyspace's requests are not routed")
	}
}

// exhaust takes every stream of c, as requests waiting for answers would.
func exhaust(c *dconn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = make([]*call, maxStreams)
	for i := range c.calls {
		c.calls[i] = abandoned
	}
	c.free = nil
}

// A request whose replica's connection has every stream waiting is sent to the next replica
// (it is no error: nothing was sent); with every connection exhausted it is not sent, and
// says so, for the driver to carry.
func TestExecPassesExhaustedStreamsToTheNextReplica(t *testing.T) {
	x, _, st := routingDirect(t, []node{{"dc1", "r1"}, {"dc1", "r1"}}, "", map[string]any{"class": "SimpleStrategy", "replication_factor": "2"})
	ring := x.policy.ring.Load()
	r := NewRoute()
	r.SetKey(bigintKey(42))
	owner := ring.owner(r.token)
	rp := x.cur.Load()
	peers := map[*hostPool]*peer{}
	servers := map[*hostPool]net.Conn{}
	for j, p := range rp.pools {
		if peers[p] != nil {
			continue
		}
		pe := newPeer(t)
		c, server := dialOnly(t, pe)
		p.slots[0].Store(c)
		p.slots[1].Store(nil)
		peers[p], servers[p] = pe, server
		if ring.hosts[j] == ring.hosts[owner] {
			exhaust(c)
		}
	}
	next := rp.pools[(owner+1)%len(ring.hosts)]
	if next == rp.pools[owner] {
		t.Fatal("the ring's next position is the owner's")
	}
	ds := NewDeadlines(5 * time.Second)
	t.Cleanup(ds.Stop)
	dl := ds.New()
	req := st.NewRequest(gocql.One, 0, 1)
	req.Values[0] = bigintKey(42)
	done := make(chan error, 1)
	dl.Arm()
	go func() { done <- req.Exec(dl, r) }()
	select {
	case s := <-peers[next].executes:
		answer(servers[next], s)
	case err := <-done:
		t.Fatalf("Exec returned %v before the next replica received the request", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the next replica received no EXECUTE")
	}
	if err := <-done; err != nil {
		t.Fatalf("Exec: %v", err)
	}
	dl.Disarm()

	exhaust(next.slots[0].Load())
	dl.Arm()
	err := req.Exec(dl, r)
	dl.Disarm()
	if why, ok := NotSent(err); !ok || why != FallbackStreams {
		t.Fatalf("every connection exhausted: err = %v; want not sent, streams exhausted", err)
	}
}
