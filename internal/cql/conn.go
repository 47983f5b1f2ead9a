package cql

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The driver sends each request with its own write on the socket, or hands it to a coalescing
// goroutine that waits 200 µs for company and then wakes every sender to say its bytes went
// out. At tens of thousands of requests a second either is a good share of the client's CPU:
// a write syscall on loopback also pays for the receiving side's TCP processing, and each
// handoff parks and wakes a goroutine. A batchConn queues what the driver writes and returns
// at once; one flusher goroutine sends whatever has queued in one write, so requests issued
// while a send is under way go out together in the next, with no timer and no wait when the
// connection is idle. Nothing is acknowledged that the connection would not have accepted
// either: a failed send closes the connection, and the driver fails every request on it.

// The socket deadlines are the batchConn's own: a connection on which nothing can be sent, or
// from which nothing arrives, for ioTimeout is closed, and the driver fails what waits on it
// and reconnects. The driver keeps every connection busy with a heartbeat every few seconds,
// so only a dead or stuck peer stays silent that long. What the driver asks for is ignored: it
// moves its deadlines before every frame it reads or sends, and moving the socket's timer that
// often costs more than the I/O. The socket's deadline is moved at most once every
// ioTimeout/8 instead, so a connection is given up between 7/8 of ioTimeout and ioTimeout
// after its last byte.

// maxRetained is the largest queue buffer kept for reuse after a send; a burst of large
// statements should not pin its memory for the rest of the run.
const maxRetained = 1 << 20

// maxQueued bounds what waits for the flusher. Requests in flight are bounded by the load's
// concurrency, but a stuck socket holds the flusher for up to ioTimeout while timed-out
// requests are sent again; a write that would take the queue past this waits for the send
// under way instead (a single larger write is queued alone).
const maxQueued = 16 << 20

type batchConn struct {
	net.Conn
	mu     sync.Mutex
	queued []byte
	spare  []byte
	err    error
	// room is signalled whenever the flusher takes the queue or the connection fails.
	room      *sync.Cond
	maxQueued int
	// kick holds one token when the queue has something the flusher has not taken yet.
	kick      chan struct{}
	done      chan struct{}
	once      sync.Once
	ioTimeout time.Duration
	// sending is set while a goroutine writes on the socket: the flusher, or a writer that
	// found nothing queued and nothing being sent.
	sending bool
	// readSet and writeSet are the socket's deadlines (Unix nanoseconds); only the reading
	// goroutine and the one sending touch them.
	readSet, writeSet int64
	// raw is the plain TCP socket under Conn, written by writer (see rawio_linux.go), or
	// nil when Conn is written through (TLS, a pipe); only the goroutine sending uses writer.
	raw    syscall.RawConn
	writer socketWriter
}

func newBatchConn(c net.Conn, ioTimeout time.Duration) *batchConn {
	b := &batchConn{Conn: c, ioTimeout: ioTimeout, maxQueued: maxQueued, kick: make(chan struct{}, 1), done: make(chan struct{}), raw: rawSocket(c)}
	b.room = sync.NewCond(&b.mu)
	go b.flush()
	return b
}

// Write queues p for the flusher.
func (b *batchConn) Write(p []byte) (int, error) { return b.write(p, false) }

// writeAlone is Write for a request its sender knows to be the only one in flight on the
// connection: when nothing is queued or being sent, it is sent at once by its writer, which
// spares the handoff to the flusher and back (at one request in flight, most of the
// client's latency). With more in flight, Write's batching is the cheaper: with one
// thread, a writer that found the queue empty would send every request alone.
func (b *batchConn) writeAlone(p []byte) (int, error) { return b.write(p, true) }

func (b *batchConn) write(p []byte, alone bool) (int, error) {
	b.mu.Lock()
	for b.err == nil && len(b.queued) > 0 && len(b.queued)+len(p) > b.maxQueued {
		b.room.Wait()
	}
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	if alone && !b.sending && len(b.queued) == 0 {
		b.sending = true
		b.mu.Unlock()
		err := b.send(p)
		if err != nil {
			return 0, err
		}
		return len(p), nil
	}
	first := len(b.queued) == 0
	b.queued = append(b.queued, p...)
	b.mu.Unlock()
	if first {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (b *batchConn) flush() {
	for {
		select {
		case <-b.kick:
		case <-b.done:
			return
		}
		runtime.Gosched()
		b.mu.Lock()
		if b.sending {
			// A writer is sending inline; it kicks again when done if more queued.
			b.mu.Unlock()
			continue
		}
		out := b.queued
		if len(out) == 0 {
			b.mu.Unlock()
			continue
		}
		b.queued, b.spare = b.spare[:0], nil
		b.sending = true
		b.room.Broadcast()
		b.mu.Unlock()
		if b.send(out) != nil {
			return
		}
		if cap(out) <= maxRetained {
			b.mu.Lock()
			b.spare = out
			b.mu.Unlock()
		}
	}
}

// send writes p on the socket; b.sending is set. It clears that, hands what queued meanwhile
// to the flusher, and on failure fails the connection.
func (b *batchConn) send(p []byte) error {
	err := b.extend(b.Conn.SetWriteDeadline, &b.writeSet)
	if err == nil {
		if b.raw != nil {
			err = b.writer.write(b.raw, p)
		} else {
			_, err = b.Conn.Write(p)
		}
	}
	b.mu.Lock()
	b.sending = false
	more := len(b.queued) > 0
	b.mu.Unlock()
	if err != nil {
		err = b.explain("sending to", err)
		b.fail(err)
		return err
	}
	if more {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// fail makes every later write return err and closes the connection, which fails whatever
// the driver is waiting for on it.
func (b *batchConn) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.queued = nil
	b.room.Broadcast()
	b.mu.Unlock()
	_ = b.Close()
}

func (b *batchConn) Close() error {
	err := net.ErrClosed
	b.once.Do(func() {
		close(b.done)
		b.mu.Lock()
		if b.err == nil {
			b.err = net.ErrClosed
		}
		b.room.Broadcast()
		b.mu.Unlock()
		err = b.Conn.Close()
	})
	return err
}

// Read reads from the socket; a connection silent for ioTimeout is closed, with an error the
// driver does not retry.
func (b *batchConn) Read(p []byte) (int, error) {
	if err := b.extend(b.Conn.SetReadDeadline, &b.readSet); err != nil {
		return 0, err
	}
	n, err := b.Conn.Read(p)
	if err != nil {
		err = b.explain("reading from", err)
		b.fail(err)
	}
	return n, err
}

// explain says what a socket error means; a timeout becomes a plain error, so that the
// driver gives the connection up rather than waiting again.
func (b *batchConn) explain(doing string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s %s: nothing moved for %s: %s", doing, b.RemoteAddr(), b.ioTimeout, err.Error())
	}
	return fmt.Errorf("%s %s: %w", doing, b.RemoteAddr(), err)
}

// extend moves a socket deadline to ioTimeout from now if it is nearer than 7/8 of that.
func (b *batchConn) extend(set func(time.Time) error, current *int64) error {
	now := time.Now().UnixNano()
	if *current-now >= int64(b.ioTimeout-b.ioTimeout/8) {
		return nil
	}
	*current = now + int64(b.ioTimeout)
	return set(time.Unix(0, *current))
}

// The driver's deadlines are not the socket's (see above).

func (b *batchConn) SetDeadline(time.Time) error      { return nil }
func (b *batchConn) SetReadDeadline(time.Time) error  { return nil }
func (b *batchConn) SetWriteDeadline(time.Time) error { return nil }

// hostDialer dials the driver's connections as batchConns, with TLS under the batching so a
// send is encrypted as one record stream rather than one record per request.
type hostDialer struct {
	dialer    net.Dialer
	tls       *tls.Config
	ioTimeout time.Duration
	// together is Options.Together, for the direct connections dialled here.
	together bool
}

func (d *hostDialer) DialHost(ctx context.Context, host *gocql.HostInfo) (*gocql.DialedHost, error) {
	if host.Port() == 0 || host.ConnectAddress() == nil || host.ConnectAddress().IsUnspecified() {
		return nil, fmt.Errorf("host %s has no address to connect to", host.HostnameAndPort())
	}
	raw, err := d.dialer.DialContext(ctx, "tcp", host.ConnectAddressAndPort())
	if err != nil {
		return nil, err
	}
	dialed, err := gocql.WrapTLS(ctx, raw, host.HostnameAndPort(), d.tls)
	if err != nil {
		return nil, err
	}
	if dialed.Conn == nil {
		return nil, errors.New("dialing produced no connection")
	}
	// The driver's own coalescing would only add a goroutine handoff in front of the queue.
	return &gocql.DialedHost{Conn: newBatchConn(dialed.Conn, d.ioTimeout), DisableCoalesce: true}, nil
}
