package cql

import (
	"math/big"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// directSession connects to the shared two-node cluster the writer's tests use and gives a
// fresh table it_direct.t (bigint key, blob value) at RF 1, so that each key has one node.
func directSession(t *testing.T) (*gocql.Session, *Direct) {
	t.Helper()
	c := cassandra.Start(t, cassandra.Options{Nodes: 2, Auth: true})
	o := Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password, Timeout: 10 * time.Second, NumConns: 1}
	s, x, err := ConnectDirect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close(); s.Close() })
	for _, stmt := range []string{
		`DROP KEYSPACE IF EXISTS it_direct`,
		`CREATE KEYSPACE it_direct WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE it_direct.t (k bigint PRIMARY KEY, v blob)`,
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	x.Warm(t.Context())
	return s, x
}

// directInsert prepares the table's insert on x and returns it with a deadline, a request
// and a route for one goroutine.
func directInsert(t *testing.T, x *Direct) (*Statement, *Deadline, *Request, *Route) {
	t.Helper()
	st, err := x.Prepare("it_direct", `INSERT INTO it_direct.t (k, v) VALUES (?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	ds := NewDeadlines(5 * time.Second)
	t.Cleanup(ds.Stop)
	r := NewRoute()
	routable(t, x, st, r)
	return st, ds.New(), st.NewRequest(gocql.One, 0, 2), r
}

// routable waits until x knows the replicas of st's keyspace. The keyspace was just created
// through the driver's session, whose schema metadata learns of it from the nodes' schema
// events a moment later; until then Direct sends nothing and reads the keyspace again a
// second later (replicaRetry).
func routable(t *testing.T, x *Direct, st *Statement, r *Route) {
	t.Helper()
	r.SetKey(bigintKey(0))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, _ := x.pick(r, st, 0, 0); c != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no direct connection for keyspace %s after 30s: %v", st.keyspace, x.LastSetupError())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Every insert sent directly is in the table afterwards, each was sent to the node that owns
// its key by Cassandra's own token() and the ring the nodes publish in system.local and
// system.peers, and a value Cassandra refuses comes back as its error, classified by code.
func TestDirectInsertsReachTheOwnerOfTheirKey(t *testing.T) {
	s, x := directSession(t)
	st, dl, req, r := directInsert(t, x)
	owners := ringFromNodes(t, s)
	const n = 500
	sentTo := map[string]int{}
	for k := range int64(n) {
		key := bigintKey(k)
		r.SetKey(key)
		req.Values[0], req.Values[1] = key, []byte("value-"+strconv.FormatInt(k, 10))
		c, _ := x.pick(r, st, 0, 0)
		if c == nil {
			t.Fatalf("no direct connection for key %d: %v", k, x.LastSetupError())
		}
		sentTo[c.addr]++
		dl.Arm()
		err := req.Exec(dl, r)
		dl.Disarm()
		if err != nil {
			t.Fatalf("insert %d: %v", k, err)
		}
		if k%25 == 0 {
			var token int64
			if err := s.Query(`SELECT token(k) FROM it_direct.t WHERE k = ?`, k).Scan(&token); err != nil {
				t.Fatalf("token of key %d: %v", k, err)
			}
			if want := owners.owner(token); c.addr != want {
				t.Errorf("key %d (token %d) went to %s, its owner is %s", k, token, c.addr, want)
			}
		}
	}
	var count int
	if err := s.Query(`SELECT count(*) FROM it_direct.t`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != n {
		t.Errorf("the table holds %d rows after %d direct inserts", count, n)
	}
	if len(sentTo) != 2 {
		t.Errorf("the inserts went to %v; with two nodes at RF 1 both own keys", sentTo)
	}

	// A bigint of 3 bytes is refused by the node: Invalid (0x2200).
	req.Values[0] = []byte{1, 2, 3}
	dl.Arm()
	err := req.Exec(dl, r)
	dl.Disarm()
	re, ok := err.(gocql.RequestError) //nolint:errorlint // the direct path returns it unwrapped
	if !ok || re.Code() != gocql.ErrCodeInvalid {
		t.Errorf("a 3-byte bigint: err = %v (%T), want a RequestError with code 0x2200", err, err)
	}
}

// A node that does not hold the statement's id (a restart forgets prepared statements)
// answers UNPREPARED; the request prepares it again on that connection and succeeds.
func TestDirectPreparesAgainWhenTheNodeForgot(t *testing.T) {
	s, x := directSession(t)
	st, dl, req, r := directInsert(t, x)
	insert := func(k int64) error {
		r.SetKey(bigintKey(k))
		req.Values[0], req.Values[1] = bigintKey(k), []byte("v")
		dl.Arm()
		defer dl.Disarm()
		return req.Exec(dl, r)
	}
	if err := insert(1); err != nil {
		t.Fatal(err)
	}
	// An id no node holds, as after a restart: every connection has it as the statement's.
	conns := directConns(x)
	if len(conns) == 0 {
		t.Fatal("no direct connection open after an insert")
	}
	var good []byte
	for _, c := range conns {
		if id := c.ids[st.index].Load(); id != nil {
			good = *id
		}
	}
	if good == nil {
		t.Fatal("no connection holds the statement's id after an insert")
	}
	// The id is the same on every node (Cassandra derives it from the keyspace and query).
	for _, c := range conns {
		bogus := slices.Repeat([]byte{0xAB}, len(good))
		c.ids[st.index].Store(&bogus)
	}
	if err := insert(2); err != nil {
		t.Fatalf("insert after the node lost the statement: %v", err)
	}
	// The connection that carried insert 2 prepared again and holds the node's id.
	again := 0
	for _, c := range conns {
		if got := c.ids[st.index].Load(); got != nil && string(*got) == string(good) {
			again++
		}
	}
	if again != 1 {
		t.Errorf("%d connections hold the node's id after the insert that found it unprepared, want the one that carried it", again)
	}
	var count int
	if err := s.Query(`SELECT count(*) FROM it_direct.t`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 2 {
		t.Errorf("the table holds %d rows, want 2", count)
	}
}

// nodeRing is the ring as the nodes publish it in system.local and system.peers.
type nodeRing struct {
	tokens []int64
	addrs  []string
}

func ringFromNodes(t *testing.T, s *gocql.Session) nodeRing {
	t.Helper()
	type entry struct {
		token int64
		addr  string
	}
	var all []entry
	add := func(addr net.IP, port int, tokens []string) {
		for _, tk := range tokens {
			v, ok := new(big.Int).SetString(tk, 10)
			if !ok {
				t.Fatalf("token %q", tk)
			}
			all = append(all, entry{v.Int64(), net.JoinHostPort(addr.String(), strconv.Itoa(port))})
		}
	}
	var (
		addr   net.IP
		port   int
		tokens []string
	)
	// Both tables are read on the same node: each node's peers are the others.
	var id gocql.UUID
	if err := s.Query(`SELECT host_id, rpc_address, rpc_port, tokens FROM system.local`).Scan(&id, &addr, &port, &tokens); err != nil {
		t.Fatal(err)
	}
	add(addr, port, tokens)
	iter := s.Query(`SELECT native_address, native_port, tokens FROM system.peers_v2`).SetHostID(id.String()).Iter()
	for iter.Scan(&addr, &port, &tokens) {
		add(addr, port, tokens)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b entry) int { return cmpInt(a.token, b.token) })
	var r nodeRing
	for _, e := range all {
		r.tokens, r.addrs = append(r.tokens, e.token), append(r.addrs, e.addr)
	}
	if len(r.tokens) == 0 {
		t.Fatal("the nodes publish no tokens")
	}
	return r
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// owner is the node whose range holds token: the first with a token at or above it.
func (r nodeRing) owner(token int64) string {
	i, _ := slices.BinarySearch(r.tokens, token)
	if i == len(r.tokens) {
		i = 0
	}
	return r.addrs[i]
}

// directConns lists x's open connections.
func directConns(x *Direct) []*dconn {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []*dconn
	for _, p := range x.pools {
		for i := range p.slots {
			if c := p.slots[i].Load(); c != nil && !c.dead.Load() {
				out = append(out, c)
			}
		}
	}
	return out
}
