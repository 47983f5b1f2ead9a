package cql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// The few pieces of the CQL native protocol, version 4, that the direct path speaks
// (https://github.com/apache/cassandra/blob/cassandra-5.0/doc/native_protocol_v4.spec):
// STARTUP and password authentication, OPTIONS as a heartbeat, PREPARE, and EXECUTE of a
// prepared statement with positional values. Everything else stays with the driver.

const (
	protoRequest  = 0x04
	protoResponse = 0x84
	headerLen     = 9

	opError         = 0x00
	opStartup       = 0x01
	opReady         = 0x02
	opAuthenticate  = 0x03
	opOptions       = 0x05
	opSupported     = 0x06
	opResult        = 0x08
	opPrepare       = 0x09
	opExecute       = 0x0A
	opAuthChallenge = 0x0E
	opAuthResponse  = 0x0F
	opAuthSuccess   = 0x10

	resultPrepared = 0x0004

	flagTracing       = 0x02
	flagCustomPayload = 0x04
	flagWarning       = 0x08

	// queryValues, querySkipMetadata and queryDefaultTimestamp are EXECUTE's query flags:
	// values follow, the result needs no column metadata, and the request carries the
	// client's timestamp for its writes.
	queryValues           = 0x01
	querySkipMetadata     = 0x02
	queryDefaultTimestamp = 0x20

	// errUnprepared is the node's answer to an EXECUTE of an id it does not hold.
	errUnprepared = 0x2500

	// maxFrame bounds a response body; a longer length is a corrupt stream.
	maxFrame = 256 << 20
)

// appendHeader starts a request frame; finishFrame writes its length once the body is in.
func appendHeader(b []byte, op byte) []byte {
	return append(b, protoRequest, 0, 0, 0, op, 0, 0, 0, 0)
}

func finishFrame(b []byte) []byte {
	binary.BigEndian.PutUint32(b[5:headerLen], uint32(len(b)-headerLen))
	return b
}

func appendShort(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }

func appendString(b []byte, s string) []byte {
	return append(appendShort(b, uint16(len(s))), s...)
}

func appendLongString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

// appendBytes writes a [bytes]: a nil value is a null.
func appendBytes(b, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
	}
	return append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
}

// startupFrame asks for CQL 3 without compression.
func startupFrame() []byte {
	b := appendHeader(nil, opStartup)
	b = appendShort(b, 1)
	b = appendString(b, "CQL_VERSION")
	b = appendString(b, "3.0.0")
	return finishFrame(b)
}

// authFrame answers PasswordAuthenticator's challenge with SASL PLAIN.
func authFrame(user, password string) []byte {
	token := make([]byte, 0, 2+len(user)+len(password))
	token = append(append(append(append(token, 0), user...), 0), password...)
	return finishFrame(appendBytes(appendHeader(nil, opAuthResponse), token))
}

func prepareFrame(query string) []byte {
	return finishFrame(appendLongString(appendHeader(nil, opPrepare), query))
}

func optionsFrame() []byte { return finishFrame(appendHeader(nil, opOptions)) }

// reader walks a response body; a short body sets err and yields zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = errShortBody
		}
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) short() int {
	v := r.take(2)
	if v == nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(v))
}

func (r *reader) int() int32 {
	v := r.take(4)
	if v == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(v))
}

func (r *reader) string() string { return string(r.take(r.short())) }

func (r *reader) shortBytes() []byte { return r.take(r.short()) }

func (r *reader) bytes() []byte {
	n := r.int()
	if n < 0 {
		return nil
	}
	return r.take(int(n))
}

var errShortBody = errors.New("cql: response body shorter than its fields")

// skipPrefix skips what the header's flags put before a response's own body: a tracing id,
// warnings and a custom payload, in that order.
func (r *reader) skipPrefix(flags byte) {
	if flags&flagTracing != 0 {
		r.take(16)
	}
	if flags&flagWarning != 0 {
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.string()
		}
	}
	if flags&flagCustomPayload != 0 {
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.string()
			r.bytes()
		}
	}
}

// ServerError is an ERROR response. It satisfies the driver's RequestError, so a failure of
// the direct path is classified as the driver's would be.
type ServerError struct {
	code int
	msg  string
}

func (e *ServerError) Code() int       { return e.code }
func (e *ServerError) Message() string { return e.msg }
func (e *ServerError) Error() string   { return e.msg }

// serverError reads an ERROR body: its code and message (the fields some codes add after
// them are not needed: the code says what the writer counts).
func serverError(r *reader) error {
	code := int(r.int())
	msg := r.string()
	if r.err != nil {
		return fmt.Errorf("cql: reading an error response: %w", r.err)
	}
	if msg == "" {
		msg = "server error 0x" + strconv.FormatInt(int64(code), 16)
	}
	return &ServerError{code: code, msg: msg}
}
