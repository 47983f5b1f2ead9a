package cql

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// dconn is one connection of the direct path. Callers take a stream, register their call
// under it and queue the frame on the batchConn; one reader goroutine parses responses and
// hands each to the call waiting on its stream. A call that gives up before its answer
// leaves its stream marked abandoned, and the reader frees the stream when the late answer
// arrives: a stream is never reused while the node may still answer on it.
type dconn struct {
	// bc is the batched connection the frames are queued on (writeAlone for a request alone
	// in flight).
	bc   *batchConn
	addr string

	mu    sync.Mutex
	calls []*call
	free  []int16
	err   error

	// prepared says, by statement index, whether this connection's node holds the statement;
	// prepareMu lets one caller prepare while the others wait for it.
	prepared  [maxStatements]atomic.Bool
	prepareMu sync.Mutex

	dead     atomic.Bool
	lastSent atomic.Int64
	done     chan struct{}
}

// maxStreams is protocol v4's stream id space (non-negative ids are the client's).
const maxStreams = 1 << 15

// call is one request awaiting its response. done holds one token once it is answered.
type call struct {
	done chan struct{}
	err  error
	// wantID asks the reader to keep a PREPARED result's id in id.
	wantID bool
	id     []byte
}

func newCall() *call { return &call{done: make(chan struct{}, 1)} }

// abandoned marks a stream whose caller gave up: the reader frees it on the answer.
var abandoned = &call{}

// errStreamsExhausted is a connection with every stream id waiting for an answer.
var errStreamsExhausted = errors.New("cql: all 32768 streams of the connection are waiting for answers")

// dialDirect opens, authenticates and starts a direct connection.
func dialDirect(ctx context.Context, d *hostDialer, addr, user, password string, timeout time.Duration) (*dconn, error) {
	raw, err := d.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	nc := raw
	if d.tls != nil {
		nc, err = tlsClient(ctx, raw, addr, d.tls)
		if err != nil {
			_ = raw.Close()
			return nil, err
		}
	}
	bc := newBatchConn(nc, d.ioTimeout)
	br := bufio.NewReaderSize(bc, 64<<10)
	if err := handshake(bc, br, user, password, timeout); err != nil {
		_ = bc.Close()
		return nil, fmt.Errorf("starting a connection to %s: %w", addr, err)
	}
	dc := &dconn{bc: bc, addr: addr, done: make(chan struct{})}
	dc.lastSent.Store(time.Now().UnixNano())
	go dc.read(br)
	go dc.heartbeat(d.ioTimeout / 4)
	return dc, nil
}

// handshake sends STARTUP and, when the node asks, the password, reading each answer
// directly: nothing else is on the connection yet.
func handshake(c net.Conn, br *bufio.Reader, user, password string, timeout time.Duration) error {
	timer := time.AfterFunc(timeout, func() { _ = c.Close() })
	defer timer.Stop()
	if _, err := c.Write(startupFrame()); err != nil {
		return err
	}
	op, body, err := readFrame(br)
	if err != nil {
		return err
	}
	if op == opAuthenticate {
		if user == "" {
			return errors.New("the node requires a username and password")
		}
		if _, err := c.Write(authFrame(user, password)); err != nil {
			return err
		}
		if op, body, err = readFrame(br); err != nil {
			return err
		}
		if op == opAuthSuccess {
			return nil
		}
	}
	switch op {
	case opReady:
		return nil
	case opError:
		return serverError(&reader{b: body})
	}
	return fmt.Errorf("unexpected answer 0x%02x to STARTUP", op)
}

// readFrame reads one whole response, copying its body.
func readFrame(br *bufio.Reader) (byte, []byte, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil, err
	}
	n, err := bodyLen(h[:])
	if err != nil {
		return 0, nil, err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, nil, err
	}
	var r reader
	r.b = body
	r.skipPrefix(h[1])
	return h[4], r.b, r.err
}

func bodyLen(h []byte) (int, error) {
	if h[0] != protoResponse {
		return 0, fmt.Errorf("cql: a response of protocol 0x%02x, not 0x%02x", h[0], protoResponse)
	}
	n := binary.BigEndian.Uint32(h[5:headerLen])
	if n > maxFrame {
		return 0, fmt.Errorf("cql: a response body of %d bytes", n)
	}
	return int(n), nil
}

// start takes a stream for cl and queues frame on it; it returns the stream.
func (d *dconn) start(cl *call, frame []byte) (int16, error) {
	d.mu.Lock()
	if d.err != nil {
		err := d.err
		d.mu.Unlock()
		return 0, err
	}
	var s int16
	switch {
	case len(d.free) > 0:
		s = d.free[len(d.free)-1]
		d.free = d.free[:len(d.free)-1]
	case len(d.calls) < maxStreams:
		s = int16(len(d.calls))
		d.calls = append(d.calls, nil)
	default:
		d.mu.Unlock()
		return 0, errStreamsExhausted
	}
	d.calls[s] = cl
	alone := len(d.free) == len(d.calls)-1
	d.mu.Unlock()
	binary.BigEndian.PutUint16(frame[2:4], uint16(s))
	d.lastSent.Store(time.Now().UnixNano())
	var err error
	if alone {
		_, err = d.bc.writeAlone(frame)
	} else {
		_, err = d.bc.Write(frame)
	}
	if err != nil {
		// fail answers every call, cl's included.
		d.fail(err)
	}
	return s, nil
}

// wait waits for cl's answer on stream s until done is closed; a call given up leaves its
// stream to the reader.
func (d *dconn) wait(cl *call, s int16, done <-chan struct{}) error {
	select {
	case <-cl.done:
		return cl.err
	case <-done:
	}
	d.mu.Lock()
	if d.err == nil && d.calls[s] == cl {
		d.calls[s] = abandoned
		d.mu.Unlock()
		return context.DeadlineExceeded
	}
	d.mu.Unlock()
	// The reader, or fail, has taken the call: its token is on the way.
	<-cl.done
	return cl.err
}

// roundTrip sends frame and waits for its answer until done is closed.
func (d *dconn) roundTrip(cl *call, frame []byte, done <-chan struct{}) error {
	s, err := d.start(cl, frame)
	if err != nil {
		return err
	}
	return d.wait(cl, s, done)
}

func (d *dconn) read(br *bufio.Reader) {
	var big []byte
	for {
		if br.Buffered() == 0 {
			// Before reading again, let the goroutines just answered run and send their next
			// requests: the answers to those, and to others, then come back together in
			// fewer reads (with one thread, the reader would otherwise read one answer at a
			// time).
			runtime.Gosched()
		}
		h, err := br.Peek(headerLen)
		if err != nil {
			d.fail(fmt.Errorf("reading from %s: %w", d.addr, err))
			return
		}
		n, err := bodyLen(h)
		if err != nil {
			d.fail(err)
			return
		}
		flags, op, s := h[1], h[4], int16(binary.BigEndian.Uint16(h[2:4]))
		_, _ = br.Discard(headerLen)
		var body []byte
		inBuffer := n <= br.Size()
		if inBuffer {
			body, err = br.Peek(n)
		} else {
			if cap(big) < n {
				big = make([]byte, n)
			}
			body = big[:n]
			_, err = io.ReadFull(br, body)
		}
		if err != nil {
			d.fail(fmt.Errorf("reading from %s: %w", d.addr, err))
			return
		}
		d.answer(s, flags, op, body)
		if inBuffer {
			_, _ = br.Discard(n)
		}
	}
}

// answer hands a response to the call on its stream and frees the stream.
func (d *dconn) answer(s int16, flags, op byte, body []byte) {
	if s < 0 {
		return // an event: none is registered for
	}
	d.mu.Lock()
	if int(s) >= len(d.calls) || d.calls[s] == nil {
		d.mu.Unlock()
		return
	}
	cl := d.calls[s]
	d.calls[s] = nil
	d.free = append(d.free, s)
	d.mu.Unlock()
	if cl == abandoned {
		return
	}
	r := reader{b: body}
	r.skipPrefix(flags)
	cl.err = r.err
	switch {
	case r.err != nil:
	case op == opError:
		cl.err = serverError(&r)
	case op == opResult && cl.wantID:
		if kind := r.int(); kind != resultPrepared {
			cl.err = fmt.Errorf("cql: PREPARE answered with result kind %d", kind)
		} else if id := r.shortBytes(); r.err != nil {
			cl.err = r.err
		} else {
			cl.id = append(cl.id[:0], id...)
		}
	case op != opResult && op != opSupported:
		cl.err = fmt.Errorf("cql: unexpected response opcode 0x%02x", op)
	}
	cl.done <- struct{}{}
}

// fail closes the connection and answers every waiting call with err.
func (d *dconn) fail(err error) {
	d.mu.Lock()
	if d.err != nil {
		d.mu.Unlock()
		return
	}
	d.err = err
	d.dead.Store(true)
	calls := d.calls
	d.calls = nil
	d.mu.Unlock()
	close(d.done)
	_ = d.bc.Close()
	for _, cl := range calls {
		if cl != nil && cl != abandoned {
			cl.err = err
			cl.done <- struct{}{}
		}
	}
}

// heartbeat sends OPTIONS when nothing was sent for every, so the answer keeps a quiet
// connection's read deadline (batchConn) from closing it between phases.
func (d *dconn) heartbeat(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-d.done:
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, d.lastSent.Load())) < every {
			continue
		}
		if _, err := d.start(abandoned, optionsFrame()); err != nil {
			return
		}
	}
}

// prepare makes sure the connection's node holds statement i.
func (d *dconn) prepare(st *Statement, timeout time.Duration) error {
	if d.prepared[st.index].Load() {
		return nil
	}
	d.prepareMu.Lock()
	defer d.prepareMu.Unlock()
	if d.prepared[st.index].Load() {
		return nil
	}
	cl := newCall()
	cl.wantID = true
	done := make(chan struct{})
	t := time.AfterFunc(timeout, func() { close(done) })
	defer t.Stop()
	if err := d.roundTrip(cl, prepareFrame(st.query), done); err != nil {
		return fmt.Errorf("preparing on %s: %w", d.addr, err)
	}
	st.setID(cl.id)
	d.prepared[st.index].Store(true)
	return nil
}

func (d *dconn) close() { d.fail(net.ErrClosed) }
