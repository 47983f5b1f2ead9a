package cql

import (
	"errors"
	"fmt"
)

// Fallback is why Direct did not send a request it was given, leaving it to the driver.
type Fallback uint8

const (
	// FallbackNoRoute: no replica of the key had a direct connection and none had failed to
	// open one (the ring is not known yet, the key's replicas are down or outside the local
	// datacenter, or their first connections are still opening).
	FallbackNoRoute Fallback = iota
	// FallbackDial: the replica's last connection attempt failed to connect (TCP or TLS).
	FallbackDial
	// FallbackHandshake: the replica's last connection failed during STARTUP.
	FallbackHandshake
	// FallbackAuth: the replica's last connection was refused authentication, or its
	// authenticator asked for more than password authentication's single round
	// (AUTH_CHALLENGE).
	FallbackAuth
	// FallbackStreams: every stream id of the connection was waiting for an answer.
	FallbackStreams
	// NumFallbacks counts the causes.
	NumFallbacks
)

var fallbackNames = [NumFallbacks]string{"no route", "dial error", "handshake", "auth challenge", "streams exhausted"}

func (f Fallback) String() string {
	if f < NumFallbacks {
		return fallbackNames[f]
	}
	return fmt.Sprintf("fallback(%d)", uint8(f))
}

// NotSentError is Exec's answer to a request it did not send; errors.Is(err, ErrNoRoute)
// holds for every cause.
type NotSentError struct{ Cause Fallback }

func (e *NotSentError) Error() string {
	return "cql: not sent on a direct connection: " + e.Cause.String()
}

// Is makes every NotSentError an ErrNoRoute.
func (e *NotSentError) Is(target error) bool { return target == ErrNoRoute }

// notSent holds one NotSentError per cause, so that a fallback allocates nothing.
var notSent = func() (out [NumFallbacks]*NotSentError) {
	for f := range NumFallbacks {
		out[f] = &NotSentError{Cause: f}
	}
	return out
}()

// NotSent reports whether err says Exec did not send the request, and why.
func NotSent(err error) (Fallback, bool) {
	e, ok := err.(*NotSentError) //nolint:errorlint // Exec returns it unwrapped; errors.As would allocate on the hot path
	if !ok {
		return 0, false
	}
	return e.Cause, true
}

// SetupError is a direct connection that could not be opened: the cause a request that
// needed it falls back with, and the error.
type SetupError struct {
	Cause Fallback
	Addr  string
	Err   error
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("opening a direct connection to %s (%s): %v", e.Addr, e.Cause, e.Err)
}

func (e *SetupError) Unwrap() error { return e.Err }

// errAuthChallenge is an authenticator that asked a second round of SASL after the password.
var errAuthChallenge = errors.New("the node's authenticator answered the password with AUTH_CHALLENGE, asking for another round of SASL; " +
	"direct connections speak only password authentication's single round, so the driver's connections carry these requests")
