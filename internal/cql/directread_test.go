package cql

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tcpReaderConn is readerConn on a real loopback TCP connection, which the reader reads with
// its own read(2) (readRaw on Linux): the peer's end is returned for the test to write on.
func tcpReaderConn(t *testing.T, calls int) (*dconn, []*call, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("no connection accepted")
	}
	t.Cleanup(func() { _ = peer.Close() })
	bc := newBatchConn(c, time.Minute)
	if runtime.GOOS == "linux" && bc.raw == nil {
		t.Fatal("a plain TCP connection is not read directly")
	}
	d := &dconn{bc: bc, addr: "node", done: make(chan struct{})}
	cls := make([]*call, calls)
	for i := range cls {
		cls[i] = newCall()
		d.calls = append(d.calls, cls[i])
	}
	cls[calls-1].wantID = true
	go d.read(bufio.NewReaderSize(bc, readBuffer))
	return d, cls, peer
}

// Over a TCP socket, responses split anywhere between the node's writes (a header in two
// pieces, a body byte by byte) and a body of several times the read buffer written in pieces
// with pauses between them all reach their calls whole; when the node closes, the connection
// fails with a reading error.
func TestRawReaderReassemblesFramesOverTCP(t *testing.T) {
	d, cls, peer := tcpReaderConn(t, 4)
	id := bytes.Repeat([]byte{0xCD}, 50000)
	prepared := appendShort(binary.BigEndian.AppendUint32(nil, resultPrepared), uint16(len(id)))
	prepared = append(prepared, id...)
	prepared = append(prepared, bytes.Repeat([]byte{0}, 300<<10)...)
	small := response(0, 0, opResult, voidResult())
	warned := response(flagWarning, 1, opResult, append(appendString(appendShort(nil, 1), "w"), voidResult()...))
	failed := response(0, 2, opError, appendString(binary.BigEndian.AppendUint32(nil, 0x1100), "timeout"))
	large := response(0, 3, opResult, prepared)
	var pieces [][]byte
	pieces = append(pieces, small[:4], small[4:])
	for i := range warned {
		pieces = append(pieces, warned[i:i+1])
	}
	pieces = append(pieces, append(failed, large[:100]...))
	for rest := large[100:]; len(rest) > 0; {
		n := min(len(rest), 70000)
		pieces = append(pieces, rest[:n])
		rest = rest[n:]
	}
	for _, p := range pieces {
		if _, err := peer.Write(p); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	for i, cl := range cls {
		select {
		case <-cl.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("call %d was never answered", i)
		}
	}
	if cls[0].err != nil || cls[1].err != nil {
		t.Errorf("the void results: %v, %v", cls[0].err, cls[1].err)
	}
	if cls[2].err == nil || !strings.Contains(cls[2].err.Error(), "timeout") {
		t.Errorf("the error response: %v", cls[2].err)
	}
	if cls[3].err != nil || !bytes.Equal(cls[3].id, id) {
		t.Errorf("a %d-byte PREPARED body: err %v, id of %d bytes; want the %d-byte id", len(prepared), cls[3].err, len(cls[3].id), len(id))
	}
	if d.dead.Load() {
		t.Fatal("the connection failed while the node was still there")
	}
	// One more call, then the node goes away before answering it.
	last := newCall()
	d.mu.Lock()
	d.calls[0] = last
	d.mu.Unlock()
	_ = peer.Close()
	select {
	case <-last.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the call outstanding when the node closed was never answered")
	}
	if last.err == nil || !strings.Contains(last.err.Error(), "reading from node") || !strings.Contains(last.err.Error(), io.EOF.Error()) {
		t.Errorf("the call outstanding when the node closed: %v, want an EOF reading from node", last.err)
	}
}
