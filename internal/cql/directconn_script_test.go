package cql

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// dialOnly opens a direct connection to p without preparing anything.
func dialOnly(t *testing.T, p *peer) (*dconn, net.Conn) {
	t.Helper()
	c, err := dialDirect(context.Background(), &hostDialer{ioTimeout: time.Minute}, p.l.Addr().String(), "", "", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c, <-p.conn
}

// errorBody is an ERROR response's body: code and message.
func errorBody(code int32, msg string) []byte {
	return appendString(binary.BigEndian.AppendUint32(nil, uint32(code)), msg)
}

// A request whose statement is being prepared waits for that PREPARE only until its own
// deadline, not the connection's setup time; the PREPARE goes on, and the callers that wait
// for it meanwhile get its id without sending one of their own.
func TestDirectPrepareWaitsUntilTheRequestsDeadline(t *testing.T) {
	gate := make(chan struct{})
	p := newPeer(t, func(p *peer) { p.prepareGate = gate })
	c, _ := dialOnly(t, p)
	st := &Statement{query: "INSERT INTO ks.t (k) VALUES (?)"}

	expired := make(chan struct{})
	close(expired)
	if _, err := c.prepare(st, expired); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a request whose deadline passed while its statement was being prepared: err = %v, want context.DeadlineExceeded", err)
	}
	if n := p.prepares.Load(); n > 1 {
		t.Fatalf("%d PREPAREs sent for one statement", n)
	}

	const waiters = 8
	ids, errs := make([][]byte, waiters), make([]error, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = c.prepare(st, nil)
		}()
	}
	close(gate)
	wg.Wait()
	for i := range waiters {
		if errs[i] != nil || string(ids[i]) != "id1" {
			t.Errorf("waiter %d: id %q, err %v; want id1", i, ids[i], errs[i])
		}
	}
	if n := p.prepares.Load(); n != 1 {
		t.Errorf("the node got %d PREPAREs; one request's PREPARE should serve every waiter", n)
	}
	// Prepared, the statement needs no PREPARE any more.
	if id, err := c.prepare(st, nil); err != nil || string(id) != "id1" || p.prepares.Load() != 1 {
		t.Errorf("after preparing: id %q, err %v, %d PREPAREs", id, err, p.prepares.Load())
	}
}

// A PREPARE the node refuses fails every caller that waited for it with the node's error,
// once; the next caller after it tries again.
func TestDirectFailedPrepareIsSharedByItsWaiters(t *testing.T) {
	gate := make(chan struct{})
	p := newPeer(t, func(p *peer) {
		p.prepareGate = gate
		p.prepareError = errorBody(gocql.ErrCodeInvalid, "unconfigured table t")
	})
	c, _ := dialOnly(t, p)
	st := &Statement{query: "INSERT INTO ks.t (k) VALUES (?)"}
	const waiters = 5
	errs := make([]error, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.prepare(st, nil)
		}()
	}
	for p.prepares.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(gate)
	wg.Wait()
	for i, err := range errs {
		var se *ServerError
		if !errors.As(err, &se) || se.Code() != gocql.ErrCodeInvalid || !strings.Contains(err.Error(), "unconfigured table t") {
			t.Errorf("waiter %d: err = %v, want the node's Invalid error", i, err)
		}
	}
	if n := p.prepares.Load(); n != 1 {
		t.Errorf("the node got %d PREPAREs for %d waiters; want one", n, waiters)
	}
	if _, err := c.prepare(st, nil); err == nil || p.prepares.Load() != 2 {
		t.Errorf("a caller after the failure: err %v after %d PREPAREs; want a second attempt, refused", err, p.prepares.Load())
	}
}

// How a node's answers to STARTUP and the password end a handshake, and the cause a request
// that needed the connection falls back with.
func TestDirectHandshakeAnswers(t *testing.T) {
	const class = "org.apache.cassandra.auth.PasswordAuthenticator"
	tests := map[string]struct {
		user   string
		answer func() (byte, []byte)
		cause  Fallback
		want   string // in the error; "" for success
	}{
		"password accepted": {user: "u", answer: func() (byte, []byte) { return opAuthSuccess, nil }},
		"a second SASL round": {
			user: "u", answer: func() (byte, []byte) { return opAuthChallenge, appendBytes(nil, []byte("nonce")) },
			cause: FallbackAuth, want: "AUTH_CHALLENGE",
		},
		"password refused": {
			user: "u", answer: func() (byte, []byte) {
				return opError, errorBody(errCodeAuth, "Provided username u and/or password are incorrect")
			},
			cause: FallbackAuth, want: "are incorrect",
		},
		"no credentials given": {cause: FallbackAuth, want: class},
		"an unexpected answer": {
			user: "u", answer: func() (byte, []byte) { return opReady + 0x20, nil },
			cause: FallbackHandshake, want: "unexpected answer",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := newPeer(t, func(p *peer) { p.authClass, p.authAnswer = class, tc.answer })
			c, err := dialDirect(context.Background(), &hostDialer{ioTimeout: time.Minute}, p.l.Addr().String(), tc.user, "pw", 10*time.Second)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("dial: %v", err)
				}
				c.close()
				return
			}
			if err == nil {
				c.close()
				t.Fatal("the handshake succeeded")
			}
			var se *SetupError
			if !errors.As(err, &se) || se.Cause != tc.cause || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want a SetupError of cause %q mentioning %q", err, tc.cause, tc.want)
			}
		})
	}
}

// A connection with every stream waiting keeps its heartbeat: once streams are free again,
// the heartbeat sends OPTIONS. (Before, running out of streams ended the heartbeat for good.)
func TestDirectHeartbeatOutlivesExhaustedStreams(t *testing.T) {
	p := newPeer(t)
	c, _ := dialOnly(t, p)
	c.mu.Lock()
	c.calls = make([]*call, maxStreams)
	for i := range c.calls {
		c.calls[i] = abandoned
	}
	c.free = nil
	c.mu.Unlock()
	if _, err := c.start(newCall(), optionsFrame()); !errors.Is(err, errStreamsExhausted) {
		t.Fatalf("starting a request with every stream taken: err = %v", err)
	}
	// A heartbeat driven by the test's ticks: each tick is taken only once the heartbeat
	// handled the one before, so a second tick taken means the first, refused for want of
	// streams, did not end it.
	tick := make(chan time.Time)
	go c.beat(tick, time.Millisecond)
	c.lastSent.Store(0)
	for i := range 2 {
		select {
		case tick <- time.Now():
		case <-time.After(20 * time.Second):
			t.Fatalf("the heartbeat took no tick %d with every stream taken: it ended", i+1)
		}
	}
	c.mu.Lock()
	c.calls, c.free = nil, nil
	c.mu.Unlock()
	c.lastSent.Store(0)
	tick <- time.Now()
	select {
	case <-p.options:
	case <-time.After(20 * time.Second):
		t.Fatal("no heartbeat after the streams were freed")
	}
}

// A connection that opens after Close is closed, not kept: nothing is left open.
func TestDirectCloseLeavesNoConnectionOpen(t *testing.T) {
	for range 10 {
		p := newPeer(t)
		x := &Direct{dialer: &hostDialer{ioTimeout: time.Minute}, setup: 10 * time.Second, pools: map[string]*hostPool{}}
		hp := newHostPool(x, p.l.Addr().String(), 1)
		x.pools[hp.addr] = hp
		hp.redial(0)
		x.Close()
		for hp.dialing[0].Load() {
			time.Sleep(time.Millisecond)
		}
		if c := hp.slots[0].Load(); c != nil && !c.dead.Load() {
			t.Fatal("a connection opened around Close is still open")
		}
		select {
		case server := <-p.conn:
			_ = server.SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.Copy(io.Discard, server); err != nil {
				t.Fatalf("the node's side of the connection: %v, want it closed by the client", err)
			}
		default: // never connected
		}
	}
}

// The pool of a node that left the ring is closed with its connections.
func TestDirectClosesPoolsOfDepartedNodes(t *testing.T) {
	hosts := ring(t, 2, 4)
	policy := newPolicy(gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()), hosts)
	x := &Direct{policy: policy, dialer: &hostDialer{ioTimeout: time.Minute}, setup: 10 * time.Second, conns: 1, pools: map[string]*hostPool{}}
	rp := x.pools4(policy.ring.Load())
	var gone *hostPool
	for i, h := range policy.ring.Load().hosts {
		if h == hosts[1] {
			gone = rp.pools[i]
		}
	}
	p := newPeer(t)
	c, _ := dialOnly(t, p)
	gone.slots[0].Store(c)

	policy.RemoveHost(hosts[1])
	x.pools4(policy.ring.Load())
	if !c.dead.Load() {
		t.Error("the connection to a node that left the ring is still open")
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.pools[gone.addr]; ok || len(x.pools) != 1 {
		t.Errorf("pools after the node left: %d, the departed one kept: %v", len(x.pools), ok)
	}
}
