package writer

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/summary"
)

func TestWatchStopsOnBudget(t *testing.T) {
	st := newState(2)
	for range 900 {
		st.measured[0][Write].record(&sample{outcome: OK, bytes: 10, response: time.Millisecond, service: time.Millisecond})
	}
	for range 200 {
		st.measured[1][Write].record(&sample{outcome: Unavailable, retries: 3})
	}
	e := &engine{}
	last := "Cannot achieve consistency level TWO"
	e.lastErr.Store(&last)
	why := watch(context.Background(), e, st, Budget{MaxPercent: 10})
	err := why()
	want := "error budget exceeded: 200 of 1100 operations failed (18.2%, writers.maxErrorPercent is 10); last error: Cannot achieve consistency level TWO"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !e.stop.Load() {
		t.Error("engine not stopped")
	}
}

func TestWatchStopsWithContext(t *testing.T) {
	e := &engine{}
	ctx, cancel := context.WithCancel(context.Background())
	why := watch(ctx, e, newState(1), Budget{MaxPercent: 10})
	cancel()
	if err := why(); err != nil {
		t.Errorf("a cancelled watch blames the budget: %v", err)
	}
	if !e.stop.Load() {
		t.Error("engine not stopped")
	}
}

// Without writers.maxErrorPercent every failure is tolerated: the watch ends with the context
// and blames nothing, however many operations failed.
func TestWatchWithoutABudgetEndsWithTheContext(t *testing.T) {
	st := newState(1)
	for range 2000 {
		st.measured[0][Write].record(&sample{outcome: Unavailable})
	}
	e := &engine{}
	ctx, cancel := context.WithCancel(context.Background())
	why := watch(ctx, e, st, Budget{})
	if e.stop.Load() {
		t.Error("the engine was stopped before its context ended")
	}
	cancel()
	if err := why(); err != nil {
		t.Errorf("a watch without a budget blames it: %v", err)
	}
	if !e.stop.Load() {
		t.Error("engine not stopped")
	}
}

func TestNothingSucceeded(t *testing.T) {
	last := "no hosts available"
	tests := map[string]struct {
		sum  *summary.Summary
		want error
	}{
		"some succeeded":  {sum: &summary.Summary{Writes: &summary.Ops{OK: 1, Other: 100}}},
		"nothing done":    {sum: &summary.Summary{Writes: &summary.Ops{}}},
		"all failed":      {sum: &summary.Summary{Writes: &summary.Ops{Other: 7}, Reads: &summary.Ops{ReadTimeout: 3}}, want: errors.New("all 10 operations failed; last error: no hosts available")},
		"reads succeeded": {sum: &summary.Summary{Writes: &summary.Ops{Other: 7}, Reads: &summary.Ops{OK: 3}}},
		"every kind failed": {sum: &summary.Summary{Kinds: []*summary.KindOps{{Kind: "update", Ops: summary.Ops{Other: 4}}, {Kind: "delete", Ops: summary.Ops{WriteTimeout: 1}}}},
			want: errors.New("all 5 operations failed; last error: no hosts available")},
		"a kind succeeded": {sum: &summary.Summary{Writes: &summary.Ops{Other: 7}, Kinds: []*summary.KindOps{{Kind: "scanPartition", Ops: summary.Ops{OK: 1}}}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := nothingSucceeded(tc.sum, &last)
			if (err == nil) != (tc.want == nil) || err != nil && err.Error() != tc.want.Error() {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	st := newState(1)
	var out bytes.Buffer
	p := &progress{out: &out, st: st, index: 1, writers: 4, window: time.Minute}
	p.print(time.Now())
	start := time.Now()
	st.enter(phaseMeasuring, start)
	for range 1000 {
		st.measured[0][Write].record(&sample{outcome: OK, bytes: 10, response: 2 * time.Millisecond, service: time.Millisecond})
	}
	st.measured[0][Write].record(&sample{outcome: WriteTimeout, retries: 3})
	p.print(start.Add(5 * time.Second))
	st.enter(phaseDone, start.Add(time.Minute))
	p.print(start.Add(time.Minute))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"writer 1/4 waiting at the start barrier",
		"writer 1/4 measuring 5s/1m0s ops=1001 ops/s=200 p99=2ms errors=1 retries=3",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}
}
