package writer

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/workload"
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
	kind  Kind
}

func (o *scriptedOp) bind(int64) (Kind, int) { return o.kind, 10 }
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
	counter, lwt := Kind(workload.OpCounterIncrement), Kind(workload.OpInsertIfNotExists)
	tests := map[string]struct {
		retries int
		errs    []error
		kind    Kind
		want    result
	}{
		"success":                  {retries: 3, want: result{OK, 0, 1, attempts()}},
		"retried then ok":          {retries: 3, errs: []error{wto, ovl}, want: result{OK, 2, 3, attempts(WriteTimeout, Overloaded)}},
		"out of retries":           {retries: 2, errs: []error{wto, wto, ovl, wto}, want: result{Overloaded, 2, 3, attempts(WriteTimeout, WriteTimeout, Overloaded)}},
		"no retries":               {retries: 0, errs: []error{wto}, want: result{WriteTimeout, 0, 1, attempts(WriteTimeout)}},
		"not retryable":            {retries: 3, errs: []error{syntax}, want: result{Other, 0, 1, attempts(Other)}},
		"not retryable after some": {retries: 3, errs: []error{wto, syntax}, want: result{Other, 1, 2, attempts(WriteTimeout, Other)}},
		// A counter increment or lightweight transaction that timed out may have applied:
		// sending it again could count twice. One the cluster refused never ran.
		"counter increment timed out": {retries: 3, kind: counter, errs: []error{wto}, want: result{WriteTimeout, 0, 1, attempts(WriteTimeout)}},
		"lightweight transaction timed out on the client": {retries: 3, kind: lwt, errs: []error{context.DeadlineExceeded},
			want: result{ClientTimeout, 0, 1, attempts(ClientTimeout)}},
		"counter increment refused, then ok": {retries: 3, kind: counter, errs: []error{ovl, ovl}, want: result{OK, 2, 3, attempts(Overloaded, Overloaded)}},
		"update timed out, then ok":          {retries: 3, kind: Kind(workload.OpUpdate), errs: []error{wto}, want: result{OK, 1, 2, attempts(WriteTimeout)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := &engine{retries: tc.retries, backoff: Backoff{Base: time.Microsecond, Max: time.Microsecond}}
			op := &scriptedOp{errs: tc.errs, kind: tc.kind}
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
