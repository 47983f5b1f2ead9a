package cql

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
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

	// ids holds, by statement index, the id this connection's node gave the statement, nil
	// until it is prepared here: an id is kept per connection, so a node that answers with
	// an id of its own (another version, another keyspace state) is executed with it.
	// preparing is the PREPARE under way for a statement, which every caller that needs it
	// meanwhile waits for instead of sending its own.
	ids       [maxStatements]atomic.Pointer[[]byte]
	prepareMu sync.Mutex
	preparing [maxStatements]*prepareCall
	// setup bounds a PREPARE on the connection, whoever waits for it.
	setup time.Duration

	// together never writes a request alone (Options.Together).
	together bool

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

// dialDirect opens, authenticates and starts a direct connection. Its errors are
// *SetupError, saying which step failed.
func dialDirect(ctx context.Context, d *hostDialer, addr, user, password string, timeout time.Duration) (*dconn, error) {
	raw, err := d.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &SetupError{Cause: FallbackDial, Addr: addr, Err: err}
	}
	nc := raw
	if d.tls != nil {
		nc, err = tlsClient(ctx, raw, addr, d.tls)
		if err != nil {
			_ = raw.Close()
			return nil, &SetupError{Cause: FallbackDial, Addr: addr, Err: err}
		}
	}
	bc := newBatchConn(nc, d.ioTimeout)
	br := bufio.NewReaderSize(bc, 64<<10)
	if err := handshake(bc, br, user, password, timeout); err != nil {
		_ = bc.Close()
		return nil, &SetupError{Cause: handshakeCause(err), Addr: addr, Err: err}
	}
	dc := &dconn{bc: bc, addr: addr, done: make(chan struct{}), setup: timeout, together: d.together}
	dc.lastSent.Store(time.Now().UnixNano())
	go dc.read(br)
	go dc.heartbeat(d.ioTimeout / 4)
	return dc, nil
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
	alone := !d.together && len(d.free) == len(d.calls)-1
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
	d.beat(t.C, every)
}

// beat sends a heartbeat at each tick when nothing was sent for every, until the connection
// ends.
func (d *dconn) beat(tick <-chan time.Time, every time.Duration) {
	for {
		select {
		case <-d.done:
			return
		case <-tick:
		}
		if time.Since(time.Unix(0, d.lastSent.Load())) < every {
			continue
		}
		// Every stream waiting for an answer is no reason to stop: the connection is busy,
		// and the heartbeat is due again when it quiets down.
		if _, err := d.start(abandoned, optionsFrame()); err != nil && !errors.Is(err, errStreamsExhausted) {
			return
		}
	}
}

// prepareCall is one PREPARE of a statement on a connection; done is closed once id or err
// is set.
type prepareCall struct {
	done chan struct{}
	id   []byte
	err  error
}

// prepare returns the id of st on the connection's node, preparing it there first if needed.
// One PREPARE per statement is under way at a time, and every caller waits for its outcome
// (id or error) until its own request's done is closed, not for the PREPARE's own bound (the
// connection's setup time): a request never waits past its deadline for a statement, and a
// failed PREPARE is not sent again by each caller that waited for it.
func (d *dconn) prepare(st *Statement, done <-chan struct{}) ([]byte, error) {
	if id := d.ids[st.index].Load(); id != nil {
		return *id, nil
	}
	d.prepareMu.Lock()
	if id := d.ids[st.index].Load(); id != nil {
		d.prepareMu.Unlock()
		return *id, nil
	}
	p := d.preparing[st.index]
	if p == nil {
		p = &prepareCall{done: make(chan struct{})}
		d.preparing[st.index] = p
		go d.runPrepare(st, p)
	}
	d.prepareMu.Unlock()
	select {
	case <-p.done:
		return p.id, p.err
	case <-done:
		return nil, fmt.Errorf("preparing on %s: %w", d.addr, context.DeadlineExceeded)
	}
}

// runPrepare sends one PREPARE of st and hands its outcome to p's waiters.
func (d *dconn) runPrepare(st *Statement, p *prepareCall) {
	cl := newCall()
	cl.wantID = true
	expired := make(chan struct{})
	t := time.AfterFunc(d.setup, func() { close(expired) })
	err := d.roundTrip(cl, prepareFrame(st.query), expired)
	t.Stop()
	d.prepareMu.Lock()
	if err != nil {
		p.err = fmt.Errorf("preparing on %s: %w", d.addr, err)
	} else {
		p.id = cl.id
		d.ids[st.index].Store(&p.id)
	}
	// The next caller after a failure tries again; after a success it finds the id.
	d.preparing[st.index] = nil
	d.prepareMu.Unlock()
	close(p.done)
}

// forget drops st's id after the node answered UNPREPARED to it, unless a newer PREPARE
// replaced it already.
func (d *dconn) forget(st *Statement, id []byte) {
	if cur := d.ids[st.index].Load(); cur != nil && string(*cur) == string(id) {
		d.ids[st.index].CompareAndSwap(cur, nil)
	}
}

func (d *dconn) close() { d.fail(net.ErrClosed) }
