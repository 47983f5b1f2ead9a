package cql

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// response builds a response frame as a node sends it.
func response(flags byte, stream int16, op byte, body []byte) []byte {
	h := []byte{protoResponse, flags, byte(uint16(stream) >> 8), byte(stream), op, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(h[5:], uint32(len(body)))
	return append(h, body...)
}

func voidResult() []byte { return binary.BigEndian.AppendUint32(nil, 1) }

// readerConn is a connection whose reader parses input, with a call waiting on each of
// streams 0..calls-1; the last one asks for a PREPARED id. It returns once the reader
// reached the end of input, which fails the connection and answers whatever still waited.
func readerConn(t testing.TB, input []byte, calls int) (*dconn, []*call) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { _ = b.Close() })
	d := &dconn{bc: newBatchConn(a, time.Minute), addr: "node", done: make(chan struct{})}
	cls := make([]*call, calls)
	for i := range cls {
		cls[i] = newCall()
		d.calls = append(d.calls, cls[i])
	}
	if calls > 0 {
		cls[calls-1].wantID = true
	}
	d.read(bufio.NewReaderSize(bytes.NewReader(input), 64<<10))
	return d, cls
}

// answered returns a call's error once it was answered, failing the test if it was answered
// more than once or never.
func answered(t testing.TB, cl *call) error {
	t.Helper()
	select {
	case <-cl.done:
	default:
		t.Fatal("a waiting call was never answered")
	}
	select {
	case <-cl.done:
		t.Fatal("a call was answered twice")
	default:
	}
	return cl.err
}

// What precedes a body (tracing id, warnings, custom payload) is skipped, whichever flags say
// it is there; a prefix shorter than its flags say fails that call alone.
func TestResponseFlagsAreSkipped(t *testing.T) {
	tracing := bytes.Repeat([]byte{0x11}, 16)
	warnings := appendString(appendString(appendShort(nil, 2), "Batch too large"), "Aggregation query used")
	payload := appendBytes(appendString(appendShort(nil, 1), "key"), []byte("value"))
	tests := map[string]struct {
		flags  byte
		prefix []byte
		ok     bool
	}{
		"none":                {ok: true},
		"tracing":             {flags: flagTracing, prefix: tracing, ok: true},
		"warnings":            {flags: flagWarning, prefix: warnings, ok: true},
		"custom payload":      {flags: flagCustomPayload, prefix: payload, ok: true},
		"all three, in order": {flags: flagTracing | flagWarning | flagCustomPayload, prefix: append(append(append([]byte{}, tracing...), warnings...), payload...), ok: true},
		"compression, unasked, is ignored with a body that reads": {flags: 0x01, ok: true},
		"warnings cut short":   {flags: flagWarning, prefix: appendString(appendShort(nil, 3), "only one")},
		"tracing id cut short": {flags: flagTracing, prefix: tracing[:7]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := response(tc.flags, 0, opResult, append(append([]byte{}, tc.prefix...), voidResult()...))
			in = append(in, response(0, 1, opResult, voidResult())...)
			_, cls := readerConn(t, in, 3)
			err := answered(t, cls[0])
			if tc.ok != (err == nil) {
				t.Errorf("err = %v, want success %v", err, tc.ok)
			}
			if err := answered(t, cls[1]); err != nil {
				t.Errorf("the next response on the connection: %v", err)
			}
		})
	}
}

// Every error code a node answers comes back as a ServerError with its code and message,
// whatever fields the code adds after them; an error without a message names its code.
func TestEveryErrorCodeIsReported(t *testing.T) {
	cl := func(b []byte) []byte { return appendShort(b, 0x0006) } // LOCAL_QUORUM
	i32 := binary.BigEndian.AppendUint32
	codes := map[string]struct {
		code  int32
		extra []byte
	}{
		"server error":     {0x0000, nil},
		"protocol error":   {0x000A, nil},
		"bad credentials":  {0x0100, nil},
		"unavailable":      {0x1000, i32(i32(cl(nil), 2), 1)},
		"overloaded":       {0x1001, nil},
		"is bootstrapping": {0x1002, nil},
		"truncate error":   {0x1003, nil},
		"write timeout":    {0x1100, appendString(i32(i32(cl(nil), 1), 2), "SIMPLE")},
		"read timeout":     {0x1200, append(i32(i32(cl(nil), 1), 2), 0)},
		"read failure":     {0x1300, append(i32(i32(i32(cl(nil), 1), 2), 1), 1)},
		"function failure": {0x1400, appendString(appendString(appendShort(appendString(nil, "ks"), 0), "f"), "")},
		"write failure":    {0x1500, appendString(i32(i32(i32(cl(nil), 1), 2), 1), "SIMPLE")},
		"syntax error":     {0x2000, nil},
		"unauthorized":     {0x2100, nil},
		"invalid":          {0x2200, nil},
		"config error":     {0x2300, nil},
		"already exists":   {0x2400, appendString(appendString(nil, "ks"), "t")},
		"unprepared":       {0x2500, appendString(nil, "\x01\x02")},
	}
	for name, tc := range codes {
		t.Run(name, func(t *testing.T) {
			body := append(appendString(i32(nil, uint32(tc.code)), name+" from the node"), tc.extra...)
			in := append(response(0, 0, opError, body), response(0, 1, opError, i32(nil, uint32(tc.code)))...)
			in = append(in, response(0, 2, opError, append(i32(nil, uint32(tc.code)), 0, 0))...)
			_, cls := readerConn(t, in, 4)
			var se *ServerError
			if err := answered(t, cls[0]); !errors.As(err, &se) || se.Code() != int(tc.code) || se.Message() != name+" from the node" {
				t.Errorf("err = %v, want a ServerError 0x%04x with the node's message", err, tc.code)
			}
			// A body that stops after the code is a short body; one with an empty message names the code.
			if err := answered(t, cls[1]); err == nil || !strings.Contains(err.Error(), "shorter") {
				t.Errorf("an ERROR body of its code alone: err = %v", err)
			}
			if err := answered(t, cls[2]); !errors.As(err, &se) || se.Code() != int(tc.code) || !strings.Contains(err.Error(), "server error 0x") {
				t.Errorf("an ERROR with an empty message: err = %v, want one naming the code", err)
			}
		})
	}
}

// A body larger than the read buffer (64 KiB) is read whole, and the connection goes on.
func TestBodiesOverTheReadBuffer(t *testing.T) {
	// A [short bytes] holds under 64 KiB: the large body is a PREPARED result with a long id
	// and long metadata after it.
	id := bytes.Repeat([]byte{0xAB}, 60000)
	prepared := appendShort(binary.BigEndian.AppendUint32(nil, resultPrepared), uint16(len(id)))
	prepared = append(prepared, id...)
	prepared = append(prepared, bytes.Repeat([]byte{0}, 100<<10)...) // metadata the reader skips
	in := append(response(0, 0, opResult, voidResult()), response(0, 1, opResult, prepared)...)
	_, cls := readerConn(t, in, 2)
	if err := answered(t, cls[0]); err != nil {
		t.Fatalf("the response before the large one: %v", err)
	}
	if err := answered(t, cls[1]); err != nil || !bytes.Equal(cls[1].id, id) {
		t.Errorf("a %d-byte PREPARED body: err %v, id of %d bytes; want the %d-byte id", len(prepared), err, len(cls[1].id), len(id))
	}
}

// A frame the reader cannot trust (a wrong version byte, a length over the limit) ends the
// connection: every waiting call gets the error, which says what was wrong.
func TestCorruptFramesEndTheConnection(t *testing.T) {
	over := response(0, 0, opResult, nil)
	binary.BigEndian.PutUint32(over[5:], maxFrame+1)
	tests := map[string]struct {
		frame []byte
		want  string
	}{
		"a request's version byte":     {append([]byte{protoRequest}, response(0, 0, opResult, voidResult())[1:]...), "protocol 0x04"},
		"protocol v3":                  {append([]byte{0x83}, response(0, 0, opResult, voidResult())[1:]...), "protocol 0x83"},
		"protocol v5":                  {append([]byte{0x85}, response(0, 0, opResult, voidResult())[1:]...), "protocol 0x85"},
		"a length over the limit":      {over, "body of"},
		"a body cut short by the node": {response(0, 0, opResult, voidResult())[:headerLen+2], "EOF"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, cls := readerConn(t, tc.frame, 2)
			if !d.dead.Load() {
				t.Error("the connection is not marked dead")
			}
			for i, cl := range cls {
				if err := answered(t, cl); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("call %d: err = %v, want one saying %q", i, err, tc.want)
				}
			}
		})
	}
}

// Answers that do not fit their request: an opcode no request expects fails that call, as
// does a result of another kind than the PREPARED one asked for; an answer on a stream
// nobody waits on and an event are dropped; a protocol error is the node's error; and the
// connection goes on.
func TestStrayResponses(t *testing.T) {
	i32 := binary.BigEndian.AppendUint32
	in := response(0, 0, opReady, nil)
	in = append(in, response(0, 9, opResult, voidResult())...)                      // nobody waits on 9
	in = append(in, response(0, -1, 0x0C, appendString(nil, "TOPOLOGY_CHANGE"))...) // an event
	in = append(in, response(0, 1, opError, appendString(i32(nil, 0x000A), "Invalid or unsupported protocol version (5)"))...)
	in = append(in, response(0, 3, opResult, i32(nil, 2))...) // ROWS, to the PREPARE
	in = append(in, response(0, 2, opResult, voidResult())...)
	_, cls := readerConn(t, in, 4)
	if err := answered(t, cls[0]); err == nil || !strings.Contains(err.Error(), "unexpected response opcode") {
		t.Errorf("READY to a request: err = %v", err)
	}
	var se *ServerError
	if err := answered(t, cls[1]); !errors.As(err, &se) || se.Code() != 0x000A {
		t.Errorf("a protocol error: err = %v, want a ServerError 0x000a", err)
	}
	if err := answered(t, cls[2]); err != nil {
		t.Errorf("a void result after the strays: %v", err)
	}
	if err := answered(t, cls[3]); err == nil || !strings.Contains(err.Error(), "result kind 2") {
		t.Errorf("ROWS to a PREPARE: err = %v", err)
	}
}

// Whatever bytes a node sends, the reader does not panic, answers every waiting call exactly
// once, and leaves no stream both free and waiting.
func FuzzResponseReader(f *testing.F) {
	prepared := append(appendShort(binary.BigEndian.AppendUint32(nil, resultPrepared), 3), "id1"...)
	f.Add(response(0, 0, opResult, voidResult()))
	f.Add(append(response(flagWarning, 1, opResult, append(appendString(appendShort(nil, 1), "w"), voidResult()...)), response(0, 2, opResult, prepared)...))
	f.Add(response(flagTracing|flagCustomPayload, 0, opError, appendString(binary.BigEndian.AppendUint32(nil, 0x1100), "timeout")))
	f.Add(response(0, -1, 0x0C, appendString(nil, "STATUS_CHANGE")))
	f.Add([]byte{protoResponse, 0, 0, 0, opResult, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, input []byte) {
		d, cls := readerConn(t, input, 3)
		for _, cl := range cls {
			answered(t, cl)
		}
		if !d.dead.Load() {
			t.Error("the reader stopped without failing the connection")
		}
		for _, s := range d.free {
			if int(s) < len(d.calls) && d.calls[s] != nil {
				t.Errorf("stream %d is free and taken", s)
			}
		}
	})
}
