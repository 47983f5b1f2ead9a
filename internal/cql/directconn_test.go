package cql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// peer is a scripted CQL node for what a real one cannot be made to do on cue: hold one
// answer back while answering the next, or drop the connection with requests in flight.
// It answers STARTUP with READY, PREPARE with the id "id1", and each EXECUTE when the test
// says, through answer; the fields set before it serves script the rest.
type peer struct {
	l        net.Listener
	conn     chan net.Conn
	executes chan int16 // streams of the EXECUTEs received, in order
	options  chan int16 // streams of the OPTIONS received

	// authClass, when set, answers STARTUP with AUTHENTICATE naming it, and AUTH_RESPONSE
	// with authAnswer's opcode and body.
	authClass  string
	authAnswer func() (byte, []byte)
	// prepareGate, when set, holds each PREPARE's answer until it receives; prepareError,
	// when set, is the ERROR body PREPARE is answered with. prepares counts PREPAREs.
	prepareGate  chan struct{}
	prepareError []byte
	prepares     atomic.Int32
}

func newPeer(t *testing.T, script ...func(*peer)) *peer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startPeer(t, l, script...)
}

func startPeer(t *testing.T, l net.Listener, script ...func(*peer)) *peer {
	p := &peer{l: l, conn: make(chan net.Conn, 1), executes: make(chan int16, 16), options: make(chan int16, 16)}
	for _, f := range script {
		f(p)
	}
	t.Cleanup(func() { _ = l.Close() })
	go p.serve()
	return p
}

func (p *peer) serve() {
	c, err := p.l.Accept()
	if err != nil {
		return
	}
	p.conn <- c
	for {
		var h [headerLen]byte
		if _, err := io.ReadFull(c, h[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(h[5:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		s := int16(binary.BigEndian.Uint16(h[2:4]))
		switch h[4] {
		case opStartup:
			if p.authClass != "" {
				respond(c, s, opAuthenticate, appendString(nil, p.authClass))
			} else {
				respond(c, s, opReady, nil)
			}
		case opAuthResponse:
			op, b := p.authAnswer()
			respond(c, s, op, b)
		case opPrepare:
			p.prepares.Add(1)
			go p.answerPrepare(c, s)
		case opExecute:
			p.executes <- s
		case opOptions:
			respond(c, s, opSupported, appendShort(nil, 0))
			select {
			case p.options <- s:
			default:
			}
		}
	}
}

func (p *peer) answerPrepare(c net.Conn, s int16) {
	if p.prepareGate != nil {
		<-p.prepareGate
	}
	if p.prepareError != nil {
		respond(c, s, opError, p.prepareError)
		return
	}
	b := binary.BigEndian.AppendUint32(nil, resultPrepared)
	respond(c, s, opResult, appendString(b, "id1"))
}

// respondMu keeps the peer's answers, sent from several goroutines, whole.
var respondMu sync.Mutex

func respond(c net.Conn, stream int16, op byte, body []byte) {
	h := []byte{protoResponse, 0, byte(uint16(stream) >> 8), byte(stream), op, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(h[5:], uint32(len(body)))
	respondMu.Lock()
	defer respondMu.Unlock()
	_, _ = c.Write(append(h, body...))
}

// answer answers the EXECUTE on stream s with a void result.
func answer(c net.Conn, s int16) {
	respond(c, s, opResult, binary.BigEndian.AppendUint32(nil, 1))
}

func dialPeer(t *testing.T, p *peer) (*dconn, net.Conn, *Statement) {
	t.Helper()
	d := &hostDialer{ioTimeout: time.Minute}
	c, err := dialDirect(context.Background(), d, p.l.Addr().String(), "", "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	st := &Statement{query: "INSERT INTO ks.t (k) VALUES (?)"}
	id, err := c.prepare(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(id) != "id1" {
		t.Fatalf("prepared id %q, want id1", id)
	}
	return c, <-p.conn, st
}

// A request that runs out of time returns at once; its stream stays taken until the node's
// late answer arrives, so the next request, answered first, gets a stream of its own, and
// the late answer reaches no one.
func TestDirectLateAnswerFreesItsStreamOnly(t *testing.T) {
	p := newPeer(t)
	c, server, st := dialPeer(t, p)
	first, second := st.NewRequest(gocql.One, 0, 1), st.NewRequest(gocql.One, 0, 1)
	first.Values[0], second.Values[0] = []byte{1}, []byte{2}

	first.encode([]byte("id1"))
	expired := make(chan struct{})
	time.AfterFunc(50*time.Millisecond, func() { close(expired) })
	if err := c.roundTrip(first.call, first.buf, expired); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unanswered request: err = %v, want context.DeadlineExceeded", err)
	}
	late := <-p.executes

	second.encode([]byte("id1"))
	s, err := c.start(second.call, second.buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := <-p.executes; got != s || s == late {
		t.Fatalf("second request on stream %d (peer saw %d); the abandoned one holds %d", s, got, late)
	}
	answer(server, late)
	answer(server, s)
	if err := c.wait(second.call, s, make(chan struct{})); err != nil {
		t.Fatalf("second request: %v", err)
	}
	select {
	case <-first.call.done:
		t.Fatal("the late answer was delivered to the request that had given up")
	default:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[late] != nil || c.calls[s] != nil || len(c.free) != 2 {
		t.Errorf("after both answers: calls[%d]=%v calls[%d]=%v, %d free streams; want both free", late, c.calls[late], s, c.calls[s], len(c.free))
	}
}

// A node that drops the connection fails the requests waiting on it with the connection's
// error, and the connection refuses new ones.
func TestDirectDroppedConnectionFailsWaitingRequests(t *testing.T) {
	p := newPeer(t)
	c, server, st := dialPeer(t, p)
	q := st.NewRequest(gocql.One, 0, 1)
	q.Values[0] = []byte{1}
	q.encode([]byte("id1"))
	errc := make(chan error, 1)
	go func() { errc <- c.roundTrip(q.call, q.buf, make(chan struct{})) }()
	<-p.executes
	_ = server.Close()
	select {
	case err := <-errc:
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiting request: err = %v, want the connection's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a request waited on a dropped connection for 10 s")
	}
	if !c.dead.Load() {
		t.Error("connection not marked dead")
	}
	q.encode([]byte("id1"))
	if _, err := c.start(q.call, q.buf); err == nil {
		t.Error("a dead connection took a new request")
	}
}

// Over TLS, a direct connection verifies the node's certificate for the address it dials
// (here an IP address in the certificate's SANs) and speaks CQL inside the session; a
// certificate its CAs do not vouch for fails the dial.
func TestDirectOverTLS(t *testing.T) {
	cert := selfSigned(t)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	p := startPeer(t, l)
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	d := &hostDialer{tls: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, ioTimeout: time.Minute}
	c, err := dialDirect(context.Background(), d, l.Addr().String(), "", "", 5*time.Second)
	if err != nil {
		t.Fatalf("dialing a node whose certificate the CA pool holds: %v", err)
	}
	defer c.close()
	<-p.conn
	st := &Statement{query: "INSERT INTO ks.t (k) VALUES (?)"}
	if _, err := c.prepare(st, nil); err != nil {
		t.Fatalf("preparing over TLS: %v", err)
	}

	other, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	startPeer(t, other)
	if c, err := dialDirect(context.Background(), d, other.Addr().String(), "", "", 5*time.Second); err == nil {
		c.close()
		t.Error("a node whose certificate no CA in the pool signed was accepted")
	}
}
