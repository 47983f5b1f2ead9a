package writer

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Base: 10 * time.Millisecond, Max: 200 * time.Millisecond}
	tests := map[string]struct {
		attempt  int
		min, max time.Duration
	}{
		"first retry":  {attempt: 0, min: 5 * time.Millisecond, max: 10 * time.Millisecond},
		"second retry": {attempt: 1, min: 10 * time.Millisecond, max: 20 * time.Millisecond},
		"fifth retry":  {attempt: 4, min: 80 * time.Millisecond, max: 160 * time.Millisecond},
		"capped":       {attempt: 5, min: 100 * time.Millisecond, max: 200 * time.Millisecond},
		"far beyond":   {attempt: 80, min: 100 * time.Millisecond, max: 200 * time.Millisecond},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			seen := map[time.Duration]bool{}
			for range 1000 {
				d := b.Delay(tc.attempt, r)
				if d < tc.min || d > tc.max {
					t.Fatalf("Delay(%d) = %s, want within [%s, %s]", tc.attempt, d, tc.min, tc.max)
				}
				seen[d] = true
			}
			if len(seen) < 100 {
				t.Errorf("Delay(%d) took only %d distinct values: not jittered", tc.attempt, len(seen))
			}
		})
	}
}

// scriptedOp fails with the given errors in turn, then succeeds.
type scriptedOp struct {
	errs  []error
	sends int
}

func (o *scriptedOp) bind(int64) (Kind, int) { return Write, 10 }
func (o *scriptedOp) exec(Kind) (int, int, error) {
	o.sends++
	if len(o.errs) == 0 {
		return 0, 0, nil
	}
	err := o.errs[0]
	o.errs = o.errs[1:]
	return 0, 0, err
}

func TestAttemptRetries(t *testing.T) {
	wto := fakeRequestError{0x1100}
	ovl := fakeRequestError{0x1001}
	syntax := fakeRequestError{0x2000}
	type result struct {
		Outcome Outcome
		Retries int
		Sends   int
		// Failed attempts by kind: what the cluster did, retried or not.
		Failed [numOutcomes]uint16
	}
	tests := map[string]struct {
		retries int
		errs    []error
		want    result
	}{
		"success":                  {retries: 3, want: result{OK, 0, 1, attempts()}},
		"retried then ok":          {retries: 3, errs: []error{wto, ovl}, want: result{OK, 2, 3, attempts(WriteTimeout, Overloaded)}},
		"out of retries":           {retries: 2, errs: []error{wto, wto, ovl, wto}, want: result{Overloaded, 2, 3, attempts(WriteTimeout, WriteTimeout, Overloaded)}},
		"no retries":               {retries: 0, errs: []error{wto}, want: result{WriteTimeout, 0, 1, attempts(WriteTimeout)}},
		"not retryable":            {retries: 3, errs: []error{syntax}, want: result{Other, 0, 1, attempts(Other)}},
		"not retryable after some": {retries: 3, errs: []error{wto, syntax}, want: result{Other, 1, 2, attempts(WriteTimeout, Other)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := &engine{retries: tc.retries, backoff: Backoff{Base: time.Microsecond, Max: time.Microsecond}}
			op := &scriptedOp{errs: tc.errs}
			var x sample
			e.do(op, &x, rand.New(rand.NewPCG(1, 1)))
			got := result{x.outcome, x.retries, op.sends, x.failed}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("attempt (-want +got):\n%s", diff)
			}
		})
	}
}

func attempts(kinds ...Outcome) (out [numOutcomes]uint16) {
	for _, k := range kinds {
		out[k]++
	}
	return out
}
