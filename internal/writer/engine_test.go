package writer

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countingOp succeeds after a fixed delay and counts what it was asked to do.
type countingOp struct {
	delay time.Duration
	sent  *atomic.Int64
}

func (o countingOp) bind(int64) (Kind, int) { return Write, 100 }
func (o countingOp) exec(Kind) (int, error) {
	o.sent.Add(1)
	time.Sleep(o.delay)
	return 0, nil
}

func TestEnginePhases(t *testing.T) {
	type result struct {
		OK, Sent, Bytes int64
	}
	tests := map[string]struct {
		goroutines int
		delay      time.Duration
		phase      func(now time.Time) phase
		want       result
	}{
		"closed loop, operations": {
			goroutines: 8, delay: 100 * time.Microsecond,
			phase: func(now time.Time) phase { return phase{Start: now, Limit: 1000} },
			want:  result{OK: 1000, Sent: 1000, Bytes: 100_000},
		},
		"open loop, duration": {
			goroutines: 8, delay: time.Millisecond,
			phase: func(now time.Time) phase {
				return phase{Start: now, End: now.Add(400 * time.Millisecond), Limit: -1, Rate: 2500}
			},
			want: result{OK: 1000, Sent: 1000, Bytes: 100_000},
		},
		"open loop, operations": {
			goroutines: 4, delay: time.Millisecond,
			phase: func(now time.Time) phase { return phase{Start: now, Limit: 300, Rate: 1000} },
			want:  result{OK: 300, Sent: 300, Bytes: 30_000},
		},
		"rate share of zero": {
			goroutines: 2,
			phase:      func(now time.Time) phase { return phase{Start: now, Limit: 0, Rate: 1} },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var sent atomic.Int64
			e := &engine{}
			for range tc.goroutines {
				e.ops = append(e.ops, countingOp{delay: tc.delay, sent: &sent})
			}
			ps := newPhaseStats(tc.goroutines)
			e.run(tc.phase(time.Now()), ps)
			s := summarize(ps.kind(Write))
			got := result{OK: s.OK, Sent: sent.Load(), Bytes: s.Bytes}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// In an open loop a stall delays the operations queued behind it; their response latency
// must include the wait (coordinated omission corrected) while service latency does not.
func TestOpenLoopMeasuresFromIntendedStart(t *testing.T) {
	var sent atomic.Int64
	e := &engine{ops: []operation{countingOp{delay: 20 * time.Millisecond, sent: &sent}}}
	ps := newPhaseStats(1)
	// 1000/s with one request in flight at a time and 20 ms per request: each operation
	// falls further behind its schedule.
	e.run(phase{Start: time.Now(), Limit: 10, Rate: 1000}, ps)
	s := summarize(ps.kind(Write))
	if s.Response.Max() < 150_000 {
		t.Errorf("largest response latency %.0f µs; want the queueing (about 180 ms) included", s.Response.Max())
	}
	if s.Service.Max() > 60_000 {
		t.Errorf("largest service latency %.0f µs; want about 20 ms", s.Service.Max())
	}
}

func TestEngineStops(t *testing.T) {
	var sent atomic.Int64
	e := &engine{ops: []operation{countingOp{delay: time.Millisecond, sent: &sent}}}
	ps := newPhaseStats(1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		e.stop.Store(true)
	}()
	done := make(chan struct{})
	go func() {
		e.run(phase{Start: time.Now(), Limit: -1}, ps)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("engine did not stop")
	}
}
