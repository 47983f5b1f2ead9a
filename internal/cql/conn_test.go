package cql

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// loopback returns both ends of a real TCP connection on 127.0.0.1.
func loopback(t *testing.T) (client, server net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server
}

// Writes from many goroutines each arrive whole, in the order each goroutine wrote them.
func TestBatchConnDeliversEveryWriteWhole(t *testing.T) {
	client, server := loopback(t)
	b := newBatchConn(client, 10*time.Second)
	defer func() { _ = b.Close() }()
	const writers, each = 16, 500
	// A frame-like record: writer, sequence, then padding of varying length.
	record := func(w, i int) string { return fmt.Sprintf("%02d %04d %s\n", w, i, strings.Repeat("x", i%37)) }
	total := 0
	for w := range writers {
		for i := range each {
			total += len(record(w, i))
		}
	}
	got := make(chan []byte)
	go func() {
		all := make([]byte, total)
		_ = server.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, _ := io.ReadFull(server, all)
		got <- all[:n]
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := b.Write([]byte(record(w, i))); err != nil {
					t.Errorf("write: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	lines := bytes.Split(bytes.TrimSuffix(<-got, []byte("\n")), []byte("\n"))
	if len(lines) != writers*each {
		t.Fatalf("got %d records, want %d", len(lines), writers*each)
	}
	next := make([]int, writers)
	for _, l := range lines {
		var w, i int
		var pad string
		if n, _ := fmt.Sscanf(string(l), "%d %d %s", &w, &i, &pad); n < 2 || w >= writers {
			t.Fatalf("record %q is not whole", l)
		}
		if i != next[w] || string(l)+"\n" != record(w, i) {
			t.Fatalf("writer %d: got record %q, want sequence %d", w, l, next[w])
		}
		next[w]++
	}
}

// countingConn counts the writes that reach the socket and can hold them back.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes int
	hold   chan struct{}
}

func (c *countingConn) Write(p []byte) (int, error) {
	if c.hold != nil {
		<-c.hold
	}
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.writes }

// What is written while a send is under way goes out together in the next send.
func TestBatchConnSendsWhatQueuedInOneWrite(t *testing.T) {
	client, server := loopback(t)
	cc := &countingConn{Conn: client, hold: make(chan struct{})}
	b := newBatchConn(cc, 10*time.Second)
	defer func() { _ = b.Close() }()
	go func() { _, _ = io.Copy(io.Discard, server) }()

	if _, err := b.Write([]byte("first")); err != nil {
		t.Fatal(err)
	}
	// The flusher took "first" and is stuck in the socket write; 100 more queue meanwhile.
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.queued) == 0 })
	for range 100 {
		if _, err := b.Write([]byte("request")); err != nil {
			t.Fatal(err)
		}
	}
	close(cc.hold)
	waitFor(t, func() bool { return cc.count() >= 2 })
	time.Sleep(20 * time.Millisecond) // room for any further send to show
	if n := cc.count(); n != 2 {
		t.Errorf("101 writes reached the socket in %d sends, want 2 (one while the other waited)", n)
	}
}

// A write that would take the queue past its bound waits for the send under way, and one
// waiting on a connection that fails returns the failure.
func TestBatchConnBoundsTheQueue(t *testing.T) {
	client, server := loopback(t)
	cc := &countingConn{Conn: client, hold: make(chan struct{})}
	b := newBatchConn(cc, 10*time.Second)
	defer func() { _ = b.Close() }()
	b.maxQueued = 100
	go func() { _, _ = io.Copy(io.Discard, server) }()

	if _, err := b.Write(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.queued) == 0 }) // the flusher holds it
	if _, err := b.Write(make([]byte, 60)); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() { _, err := b.Write(make([]byte, 60)); wrote <- err }()
	select {
	case err := <-wrote:
		t.Fatalf("a write past the bound returned (%v) while the send was stuck", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(cc.hold)
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting write did not go on after the send")
	}

	// A write waiting on a connection that is closed meanwhile fails.
	cc2 := &countingConn{Conn: server, hold: make(chan struct{})}
	b2 := newBatchConn(cc2, 10*time.Second)
	b2.maxQueued = 100
	_, _ = b2.Write(make([]byte, 10))
	waitFor(t, func() bool { b2.mu.Lock(); defer b2.mu.Unlock(); return len(b2.queued) == 0 })
	_, _ = b2.Write(make([]byte, 60))
	go func() { _, err := b2.Write(make([]byte, 60)); wrote <- err }()
	time.Sleep(50 * time.Millisecond)
	_ = b2.Close()
	close(cc2.hold)
	select {
	case err := <-wrote:
		if err == nil {
			t.Errorf("a write waiting on a closed connection succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write waiting on a closed connection never returned")
	}
}

// A peer that goes away fails the writes after it, and reading says which peer went.
func TestBatchConnFailsWhenThePeerCloses(t *testing.T) {
	client, server := loopback(t)
	b := newBatchConn(client, 10*time.Second)
	defer func() { _ = b.Close() }()
	_ = server.Close()
	_, err := b.Read(make([]byte, 16))
	if err == nil || !strings.Contains(err.Error(), "reading from "+client.RemoteAddr().String()) {
		t.Fatalf("read after the peer closed: %v", err)
	}
	if _, err := b.Write([]byte("late")); err == nil {
		t.Errorf("write after the connection failed succeeded")
	}
}

// A connection on which nothing arrives for the I/O timeout is given up with an error that
// says so and that is not a timeout (the driver would wait again on a timeout), at most an
// eighth of the timeout early.
func TestBatchConnGivesUpASilentConnection(t *testing.T) {
	client, _ := loopback(t)
	const timeout = 400 * time.Millisecond
	b := newBatchConn(client, timeout)
	defer func() { _ = b.Close() }()
	// The driver's deadlines are ignored: this one would end the read at once.
	_ = b.SetReadDeadline(time.Now().Add(-time.Second))
	start := time.Now()
	_, err := b.Read(make([]byte, 16))
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "nothing moved for 400ms") {
		t.Fatalf("read from a silent peer: %v", err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the error is a timeout, which the driver retries: %v", err)
	}
	if took < timeout-timeout/8 || took > timeout+time.Second {
		t.Errorf("given up after %s, want about %s", took, timeout)
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Errorf("write after the connection was given up succeeded")
	}
}

// The socket's deadline moves only when it is nearer than 7/8 of the timeout.
func TestBatchConnExtendsDeadlinesRarely(t *testing.T) {
	b := &batchConn{ioTimeout: 8 * time.Second}
	var sets []time.Time
	set := func(d time.Time) error { sets = append(sets, d); return nil }
	var current int64
	for range 1000 {
		if err := b.extend(set, &current); err != nil {
			t.Fatal(err)
		}
	}
	if len(sets) != 1 {
		t.Fatalf("1000 extensions within a second set the socket deadline %d times, want 1", len(sets))
	}
	if d := time.Until(sets[0]); d < 7*time.Second || d > 8*time.Second {
		t.Errorf("deadline %s from now, want about 8s", d)
	}
	current = time.Now().Add(6 * time.Second).UnixNano() // older than an eighth of the timeout
	_ = b.extend(set, &current)
	if len(sets) != 2 {
		t.Errorf("a deadline 6s away of an 8s timeout was not moved")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// The dialer speaks TLS under the batching: a request written through it reaches a TLS
// server whole and the answer comes back.
func TestHostDialerTLS(t *testing.T) {
	cert := selfSigned(t)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		buf := make([]byte, 5)
		if _, err := io.ReadFull(c, buf); err == nil {
			_, _ = c.Write(bytes.ToUpper(buf))
		}
	}()
	addr := l.Addr().(*net.TCPAddr)
	host, err := gocql.NewHostInfoFromAddrPort(addr.IP, addr.Port)
	if err != nil {
		t.Fatal(err)
	}
	d := &hostDialer{dialer: net.Dialer{Timeout: 5 * time.Second}, tls: &tls.Config{InsecureSkipVerify: true}, ioTimeout: 5 * time.Second} //nolint:gosec // a self-signed test server
	dialed, err := d.DialHost(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dialed.Conn.Close() }()
	if _, ok := dialed.Conn.(*batchConn); !ok || !dialed.DisableCoalesce {
		t.Fatalf("dialed %T (coalescing disabled: %t), want a batchConn without the driver's coalescing", dialed.Conn, dialed.DisableCoalesce)
	}
	if _, err := dialed.Conn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5)
	if _, err := io.ReadFull(dialed.Conn, got); err != nil || string(got) != "HELLO" {
		t.Fatalf("answer %q, %v", got, err)
	}

	// A server that does not speak TLS fails the dial, not the first request.
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pl.Close() }()
	go func() {
		c, err := pl.Accept()
		if err == nil {
			_, _ = c.Write([]byte("this is not TLS\r\n"))
			_ = c.Close()
		}
	}()
	paddr := pl.Addr().(*net.TCPAddr)
	plainHost, err := gocql.NewHostInfoFromAddrPort(paddr.IP, paddr.Port)
	if err != nil {
		t.Fatal(err)
	}
	if dialed, err := d.DialHost(context.Background(), plainHost); err == nil {
		_ = dialed.Conn.Close()
		t.Errorf("dialing a server without TLS succeeded")
	}
}

// selfSigned makes a certificate for 127.0.0.1.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cassbench test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// A request alone in flight is sent by its own writer when nothing is queued or being sent
// (it returns only once the socket took it); what is written meanwhile queues for the
// flusher and goes out in one send after it.
func TestBatchConnSendsALoneRequestAtOnce(t *testing.T) {
	client, server := loopback(t)
	cc := &countingConn{Conn: client, hold: make(chan struct{})}
	b := newBatchConn(cc, 10*time.Second)
	defer func() { _ = b.Close() }()
	go func() { _, _ = io.Copy(io.Discard, server) }()

	alone := make(chan error, 1)
	go func() { _, err := b.writeAlone([]byte("alone")); alone <- err }()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.sending })
	for range 10 {
		if _, err := b.writeAlone([]byte("request")); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-alone:
		t.Fatalf("the lone write returned (%v) while its send was held", err)
	default:
	}
	close(cc.hold)
	if err := <-alone; err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return cc.count() >= 2 })
	time.Sleep(20 * time.Millisecond)
	if n := cc.count(); n != 2 {
		t.Errorf("11 writes reached the socket in %d sends, want 2 (the lone one, then the 10 queued behind it)", n)
	}
}

// A connection dialled with Options.Together hands even a lone request to its flusher: start
// returns while the socket's write is held, where without it the caller would be the one
// writing (TestBatchConnSendsALoneRequestAtOnce), and the requests started meanwhile go out
// with it in the flusher's next send.
func TestTogetherNeverWritesAloneRequestInline(t *testing.T) {
	for _, together := range []bool{true, false} {
		client, server := loopback(t)
		cc := &countingConn{Conn: client, hold: make(chan struct{})}
		d := &dconn{bc: newBatchConn(cc, 10*time.Second), addr: "node", done: make(chan struct{}), together: together}
		go func() { _, _ = io.Copy(io.Discard, server) }()
		started := make(chan error, 1)
		go func() { _, err := d.start(newCall(), make([]byte, 9)); started <- err }()
		if together {
			select {
			case err := <-started:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("with Together, a lone request's start waited for the socket: it was written inline")
			}
		} else {
			select {
			case err := <-started:
				t.Fatalf("without Together, a lone request's start returned (%v) while its write was held", err)
			case <-time.After(100 * time.Millisecond):
			}
		}
		close(cc.hold)
		_ = d.bc.Close()
	}
}
