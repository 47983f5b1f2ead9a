package cql

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Direct executes single prepared statements on connections of its own, beside the driver's
// session. The driver's request path is synchronous and general: per request it builds a
// framer for the request and one for the response, a call record with two channels, the
// query options, an internal query and an iterator, and it hashes a string to find the
// prepared id; 18 allocations, and about half the client CPU of a write at 128 in flight
// (hack/bench-writer.sh --profile). A Direct request is one reusable buffer and one
// reusable channel per load goroutine: the goroutine encodes the EXECUTE frame in place,
// queues it on the batched connection and waits on its channel; the connection's reader
// parses the answer where it lies in the read buffer.
//
// The driver's session stays in charge of everything else: it discovers the nodes and
// their tokens (routedPolicy's ring, which Direct routes by), marks them up and down, runs
// schema and setup statements, prepares with metadata and runs everything Direct does not
// (reads, batches, paging, lightweight transactions). When Direct cannot send a request it
// says so and why (NotSent: no route, dial error, handshake, auth challenge, streams
// exhausted), and the caller runs the request through the driver instead and counts it.
//
// A direct request means what the driver's would: it carries a client timestamp (protocol
// v4's default timestamp, as the driver sends by default), so that the coordinator's clock
// never orders a direct insert against the driver's writes of the same key.
type Direct struct {
	policy         *routedPolicy
	dialer         *hostDialer
	user, password string
	local          string
	conns          int
	// keyspace is the session's, for statements that name none; meta reads a keyspace's
	// replication (the session's schema metadata).
	keyspace string
	meta     func(keyspace string) (*gocql.KeyspaceMetadata, error)
	// setup bounds dialling, the handshake and preparing.
	setup time.Duration

	mu     sync.Mutex
	pools  map[string]*hostPool
	stmts  []*Statement
	closed bool
	cur    atomic.Pointer[ringPools]
	// lastErr is the last failure to open a direct connection.
	lastErr atomic.Pointer[setupErr]
}

// maxStatements bounds the statements one Direct prepares.
const maxStatements = 8

// ErrNoRoute says Direct has no live connection to any node that could take the request;
// every NotSentError is one.
var ErrNoRoute = errors.New("cql: no direct connection to a replica")

// ringPools is the driver's ring with each entry's pool, and for each statement the replicas
// of each range (replicaTable), computed once per ring: the driver replaces its ring on every
// topology, status or keyspace event, so a new replication is read on the next request.
type ringPools struct {
	ring  *tokenRing
	pools []*hostPool
	// local[i] says hosts[i] is in the local datacenter, or there is none.
	local []bool

	tableMu sync.Mutex
	tables  [maxStatements]atomic.Pointer[replicaTable]
}

// newDirect returns a Direct for the session configured by c, or nil when the session does
// not route by itself (Options.Stock).
func newDirect(o Options, c *gocql.ClusterConfig) *Direct {
	p, ok := c.PoolConfig.HostSelectionPolicy.(*routedPolicy)
	d, ok2 := c.HostDialer.(*hostDialer)
	if !ok || !ok2 {
		return nil
	}
	return &Direct{
		policy: p, dialer: d, user: o.Username, password: o.Password, local: o.LocalDatacenter, keyspace: o.Keyspace,
		conns: max(c.NumConns, 1), setup: max(c.ConnectTimeout, 10*time.Second), pools: map[string]*hostPool{},
	}
}

// Prepare registers query, on a table of keyspace (the session's when empty), for direct
// execution; each connection prepares it on first use. Its requests go to the replicas of
// their key by keyspace's replication.
func (x *Direct) Prepare(keyspace, query string) (*Statement, error) {
	if keyspace == "" {
		keyspace = x.keyspace
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, st := range x.stmts {
		if st.query == query && st.keyspace == keyspace {
			return st, nil
		}
	}
	if len(x.stmts) == maxStatements {
		return nil, fmt.Errorf("cql: more than %d statements for direct execution", maxStatements)
	}
	st := &Statement{x: x, index: len(x.stmts), query: query, keyspace: keyspace}
	x.stmts = append(x.stmts, st)
	return st, nil
}

// Warm opens the connections to every node of the ring (of the local datacenter, when one is
// set: no request goes elsewhere), waiting for them up to the connect
// timeout, so the first requests do not go through the driver for want of them.
func (x *Direct) Warm(ctx context.Context) {
	ring := x.policy.ring.Load()
	if ring == nil {
		return
	}
	rp := x.pools4(ring)
	deadline := time.Now().Add(x.setup)
	for j, p := range rp.pools {
		for i := range p.slots {
			if rp.local[j] {
				p.redial(i)
			}
		}
	}
	for j, p := range rp.pools {
		for i := range p.slots {
			if !rp.local[j] {
				break
			}
			for p.dialing[i].Load() && time.Now().Before(deadline) && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
}

// Close closes every direct connection; a connection still being opened is closed as soon
// as it is.
func (x *Direct) Close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	for _, p := range x.pools {
		p.close()
	}
}

// LastSetupError is the last direct connection that could not be opened, or nil.
func (x *Direct) LastSetupError() error {
	if e := x.lastErr.Load(); e != nil {
		return e
	}
	return nil
}

// pools4 returns ring's pools, building them when the driver replaced its ring; the pools
// of nodes that left the ring are closed.
func (x *Direct) pools4(ring *tokenRing) *ringPools {
	if rp := x.cur.Load(); rp != nil && rp.ring == ring {
		return rp
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if rp := x.cur.Load(); rp != nil && rp.ring == ring {
		return rp
	}
	rp := &ringPools{ring: ring, pools: make([]*hostPool, len(ring.hosts)), local: make([]bool, len(ring.hosts))}
	kept := make(map[string]*hostPool, len(x.pools))
	for i, h := range ring.hosts {
		addr := h.ConnectAddressAndPort()
		p := kept[addr]
		if p == nil {
			if p = x.pools[addr]; p == nil {
				p = newHostPool(x, addr, x.conns)
			}
			kept[addr] = p
		}
		rp.pools[i] = p
		rp.local[i] = x.local == "" || h.DataCenter() == x.local
	}
	for addr, p := range x.pools {
		if kept[addr] == nil {
			p.close()
		}
	}
	x.pools = kept
	x.cur.Store(rp)
	return rp
}

// hostPool is a node's direct connections, one per slot; a dead one is dialled again in the
// background, at most once a second.
type hostPool struct {
	x       *Direct
	addr    string
	slots   []atomic.Pointer[dconn]
	dialing []atomic.Bool
	next    []atomic.Int64
	// failure is the cause of the last failed dial plus one, 0 after a successful one.
	failure atomic.Uint32
	// closed (under x.mu) says the pool was closed: no connection is kept any more.
	closed bool
}

func newHostPool(x *Direct, addr string, n int) *hostPool {
	return &hostPool{x: x, addr: addr, slots: make([]atomic.Pointer[dconn], n), dialing: make([]atomic.Bool, n), next: make([]atomic.Int64, n)}
}

func (p *hostPool) conn(slot int) *dconn {
	i := slot % len(p.slots)
	if c := p.slots[i].Load(); c != nil && !c.dead.Load() {
		return c
	}
	p.redial(i)
	return nil
}

func (p *hostPool) redial(i int) {
	if time.Now().UnixNano() < p.next[i].Load() || !p.dialing[i].CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer p.dialing[i].Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), p.x.setup)
		defer cancel()
		c, err := dialDirect(ctx, p.x.dialer, p.addr, p.x.user, p.x.password, p.x.setup)
		p.next[i].Store(time.Now().Add(time.Second).UnixNano())
		if err != nil {
			cause := FallbackDial
			var se *SetupError
			if errors.As(err, &se) {
				cause = se.Cause
			}
			p.failure.Store(uint32(cause) + 1)
			p.x.lastErr.Store(&setupErr{err})
			return
		}
		p.failure.Store(0)
		// Under the Direct's lock, so that Close, or the pool's closing, either finds the
		// connection in its slot or is seen here.
		p.x.mu.Lock()
		if p.x.closed || p.closed {
			p.x.mu.Unlock()
			c.close()
			return
		}
		old := p.slots[i].Swap(c)
		p.x.mu.Unlock()
		if old != nil {
			old.close()
		}
	}()
}

// close closes the pool's connections and keeps it from opening more; x.mu is held.
func (p *hostPool) close() {
	p.closed = true
	for i := range p.slots {
		if c := p.slots[i].Swap(nil); c != nil {
			c.close()
		}
	}
}

// setupErr boxes an error for an atomic.Pointer.
type setupErr struct{ error }

func (e *setupErr) Unwrap() error { return e.error }

// tlsClient runs the TLS handshake on raw, verifying the server's name unless the
// configuration says otherwise.
func tlsClient(ctx context.Context, raw net.Conn, addr string, base *tls.Config) (net.Conn, error) {
	tc := base.Clone()
	if tc.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		tc.ServerName = host
	}
	c := tls.Client(raw, tc)
	if err := c.HandshakeContext(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Statement is a query registered for direct execution; each connection keeps the id its
// node gave it.
type Statement struct {
	x        *Direct
	index    int
	query    string
	keyspace string
}

// Request is one load goroutine's execution of a Statement: its frame buffer, its call and
// its values, all reused.
type Request struct {
	st   *Statement
	cons uint16
	slot int
	call *call
	buf  []byte
	// Values are the bound values in order, serialized; nil is a null. The caller refills
	// them before each Exec.
	Values [][]byte
	// Timestamp is the write's timestamp in microseconds since the Unix epoch, sent with the
	// request as the driver sends its own (protocol v4's default timestamp); 0 takes the
	// client's clock when the request is encoded, as the driver does. Either way the
	// coordinator's clock never decides, so a direct insert and the driver's updates and
	// deletes of the same key are ordered by one clock.
	Timestamp int64
}

// NewRequest returns a Request of arity values at consistency cons; slot spreads the
// goroutines over a node's connections.
func (st *Statement) NewRequest(cons gocql.Consistency, slot, arity int) *Request {
	return &Request{st: st, cons: uint16(cons), slot: slot, call: newCall(), buf: make([]byte, 0, 256), Values: make([][]byte, arity)}
}

// Exec runs the statement with q's values on the first replica of r's token that is up (see
// pick), until its answer or until deadline is done (context.DeadlineExceeded), preparing it
// on that connection first when needed. A connection with every stream waiting passes the
// request to the replica's next connection, then to the next replica. An error for which
// NotSent holds means it was not sent: no direct connection could take it, for the reason it
// gives, and the caller should send it another way.
func (q *Request) Exec(deadline *Deadline, r *Route) error {
	skip := 0
	c, why := q.st.x.pick(r, q.st, q.slot, skip)
	if c == nil {
		return notSent[why]
	}
	reprepared := false
	for {
		id, err := c.prepare(q.st, deadline.Done())
		if err == nil {
			q.encode(id)
			err = c.roundTrip(q.call, q.buf, deadline.Done())
		}
		if errors.Is(err, errStreamsExhausted) {
			// Not sent on c: the next connection may take it.
			skip++
			if c, _ = q.st.x.pick(r, q.st, q.slot, skip); c == nil {
				return notSent[FallbackStreams]
			}
			continue
		}
		if se, ok := err.(*ServerError); ok && !reprepared && se.code == errUnprepared { //nolint:errorlint // the connection returns it unwrapped; errors.As would allocate
			// The node lost it (a restart keeps no prepared statements in memory).
			reprepared = true
			c.forget(q.st, id)
			continue
		}
		return err
	}
}

func (q *Request) encode(id []byte) {
	b := appendHeader(q.buf[:0], opExecute)
	b = appendShort(b, uint16(len(id)))
	b = append(b, id...)
	b = appendShort(b, q.cons)
	b = append(b, queryValues|querySkipMetadata|queryDefaultTimestamp)
	b = appendShort(b, uint16(len(q.Values)))
	for _, v := range q.Values {
		b = appendBytes(b, v)
	}
	ts := q.Timestamp
	if ts == 0 {
		ts = time.Now().UnixMicro()
	}
	b = binary.BigEndian.AppendUint64(b, uint64(ts))
	q.buf = finishFrame(b)
}
