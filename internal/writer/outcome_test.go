package writer

import (
	"context"
	"errors"
	"fmt"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// fakeRequestError stands in for a server error frame: gocql's own types cannot be built
// outside the driver with a code set, but they are classified through the same interface.
type fakeRequestError struct{ code int }

func (e fakeRequestError) Code() int       { return e.code }
func (e fakeRequestError) Message() string { return fmt.Sprintf("code %#x", e.code) }
func (e fakeRequestError) Error() string   { return e.Message() }

func TestClassify(t *testing.T) {
	tests := map[string]struct {
		err  error
		want Outcome
	}{
		"nil":                       {err: nil, want: OK},
		"write timeout":             {err: fakeRequestError{gocql.ErrCodeWriteTimeout}, want: WriteTimeout},
		"read timeout":              {err: fakeRequestError{gocql.ErrCodeReadTimeout}, want: ReadTimeout},
		"unavailable":               {err: fakeRequestError{gocql.ErrCodeUnavailable}, want: Unavailable},
		"overloaded":                {err: fakeRequestError{gocql.ErrCodeOverloaded}, want: Overloaded},
		"typed write timeout":       {err: &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}, want: WriteTimeout},
		"typed read timeout":        {err: &gocql.RequestErrReadTimeout{}, want: ReadTimeout},
		"typed unavailable":         {err: &gocql.RequestErrUnavailable{Required: 2, Alive: 1}, want: Unavailable},
		"typed overloaded":          {err: &gocql.RequestErrOverloaded{}, want: Overloaded},
		"typed write failure":       {err: &gocql.RequestErrWriteFailure{}, want: Other},
		"wrapped typed unavailable": {err: fmt.Errorf("insert: %w", &gocql.RequestErrUnavailable{}), want: Unavailable},
		"write failure":             {err: fakeRequestError{gocql.ErrCodeWriteFailure}, want: Other},
		"syntax":                    {err: fakeRequestError{gocql.ErrCodeSyntax}, want: Other},
		"no response":               {err: gocql.ErrTimeoutNoResponse, want: ClientTimeout},
		"context deadline":          {err: context.DeadlineExceeded, want: ClientTimeout},
		"wrapped no response":       {err: fmt.Errorf("insert: %w", gocql.ErrTimeoutNoResponse), want: ClientTimeout},
		"wrapped overloaded":        {err: fmt.Errorf("insert: %w", fakeRequestError{gocql.ErrCodeOverloaded}), want: Overloaded},
		"no connections":            {err: gocql.ErrNoConnections, want: Other},
		"connection closed":         {err: gocql.ErrConnectionClosed, want: Other},
		"anything else":             {err: errors.New("boom"), want: Other},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Classify(tc.err); got != tc.want {
				t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
			}
		})
	}
}

func TestRetryable(t *testing.T) {
	want := map[Outcome]bool{OK: false, WriteTimeout: true, ReadTimeout: true, Unavailable: true, Overloaded: true, ClientTimeout: true, Other: false}
	for o, w := range want {
		if got := o.Retryable(); got != w {
			t.Errorf("%s.Retryable() = %t, want %t", o, got, w)
		}
	}
}

func TestClassifyDoesNotAllocate(t *testing.T) {
	errs := []error{fakeRequestError{gocql.ErrCodeWriteTimeout}, &gocql.RequestErrUnavailable{}, gocql.ErrTimeoutNoResponse, nil}
	n := testing.AllocsPerRun(100, func() {
		for _, err := range errs {
			Classify(err)
		}
	})
	if n != 0 {
		t.Errorf("Classify allocates %.1f times per call set", n)
	}
}
