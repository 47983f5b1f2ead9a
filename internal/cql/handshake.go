package cql

// The handshake of a direct connection (STARTUP, and the password when the node asks) and the
// reading of whole frames it and the reader share.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// errAuthRequired is a node that asks for credentials the writer was not given.
var errAuthRequired = errors.New("the node requires a username and password")

// errCodeAuth is the node's refusal of the credentials.
const errCodeAuth = 0x0100

// handshakeCause tells an authentication failure from any other of the handshake.
func handshakeCause(err error) Fallback {
	var se *ServerError
	if errors.Is(err, errAuthChallenge) || errors.Is(err, errAuthRequired) || errors.As(err, &se) && se.code == errCodeAuth {
		return FallbackAuth
	}
	return FallbackHandshake
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
			r := reader{b: body}
			return fmt.Errorf("%w (authenticator %s)", errAuthRequired, r.string())
		}
		if _, err := c.Write(authFrame(user, password)); err != nil {
			return err
		}
		if op, body, err = readFrame(br); err != nil {
			return err
		}
		switch op {
		case opAuthSuccess:
			return nil
		case opAuthChallenge:
			return errAuthChallenge
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
