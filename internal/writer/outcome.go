package writer

import (
	"context"
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Outcome is how one operation ended, after any retries.
type Outcome uint8

const (
	OK Outcome = iota
	WriteTimeout
	ReadTimeout
	Unavailable
	Overloaded
	ClientTimeout
	Other
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"ok", "write_timeout", "read_timeout", "unavailable", "overloaded", "client_timeout", "other"}

func (o Outcome) String() string { return outcomeNames[o] }

// Retryable outcomes are the ones a busy or briefly degraded cluster produces; anything else
// (a syntax error, a refused login) would fail the same way again.
func (o Outcome) Retryable() bool {
	switch o {
	case WriteTimeout, ReadTimeout, Unavailable, Overloaded, ClientTimeout:
		return true
	}
	return false
}

// Classify maps a driver error to its outcome. The direct type switch covers what gocql
// returns unwrapped, so classification of a failure does not allocate.
func Classify(err error) Outcome {
	if err == nil {
		return OK
	}
	switch e := err.(type) { //nolint:errorlint // unwrapped first, without allocating; wrapped errors below
	case *gocql.RequestErrWriteTimeout:
		return WriteTimeout
	case *gocql.RequestErrReadTimeout:
		return ReadTimeout
	case *gocql.RequestErrUnavailable:
		return Unavailable
	case *gocql.RequestErrOverloaded:
		return Overloaded
	case gocql.RequestError:
		return classifyCode(e.Code())
	}
	switch err {
	case gocql.ErrTimeoutNoResponse, context.DeadlineExceeded: //nolint:errorlint // unwrapped first, without allocating; wrapped errors below
		return ClientTimeout
	}
	switch err.(type) { //nolint:errorlint // asks whether err wraps anything at all
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
	default:
		// Nothing wrapped: unknown, and no need for errors.As, which allocates its targets.
		return Other
	}
	if o := classifyWrapped(err); o != Other {
		return o
	}
	if errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, context.DeadlineExceeded) {
		return ClientTimeout
	}
	return Other
}

func classifyCode(code int) Outcome {
	switch code {
	case gocql.ErrCodeWriteTimeout:
		return WriteTimeout
	case gocql.ErrCodeReadTimeout:
		return ReadTimeout
	case gocql.ErrCodeUnavailable:
		return Unavailable
	case gocql.ErrCodeOverloaded:
		return Overloaded
	}
	return Other
}

func classifyWrapped(err error) Outcome {
	var (
		wto *gocql.RequestErrWriteTimeout
		rto *gocql.RequestErrReadTimeout
		una *gocql.RequestErrUnavailable
		ovl *gocql.RequestErrOverloaded
		re  gocql.RequestError
	)
	switch {
	case errors.As(err, &wto):
		return WriteTimeout
	case errors.As(err, &rto):
		return ReadTimeout
	case errors.As(err, &una):
		return Unavailable
	case errors.As(err, &ovl):
		return Overloaded
	case errors.As(err, &re):
		return classifyCode(re.Code())
	}
	return Other
}
