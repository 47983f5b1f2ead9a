package replag

import (
	"context"
	"errors"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/writer"
)

// Both clocks are moved onto Cassandra's before they are compared: a writer 300 ms ahead and
// an observer 200 ms behind must not add 500 ms to a lag.
func TestLagCorrectsBothClocks(t *testing.T) {
	cass := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		// writer and observer are each clock minus Cassandra's; stated, the offsets measured.
		writer, observer, stated time.Duration
		trueLag, want            time.Duration
	}{
		"same clock":      {trueLag: 40 * time.Millisecond, want: 40 * time.Millisecond},
		"writer ahead":    {writer: 300 * time.Millisecond, stated: 300 * time.Millisecond, trueLag: 40 * time.Millisecond, want: 40 * time.Millisecond},
		"observer behind": {observer: -200 * time.Millisecond, trueLag: 40 * time.Millisecond, want: 40 * time.Millisecond},
		"writer offset misread by 3 ms": {
			writer: 3 * time.Millisecond, trueLag: 1 * time.Millisecond, want: 0, // -2 ms, floored
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			acked := cass.Add(tc.writer)
			seen := cass.Add(tc.trueLag).Add(tc.observer)
			got := Lag(acked, writer.ClockOffset{Offset: tc.stated}, seen, writer.ClockOffset{Offset: tc.observer})
			if got != tc.want {
				t.Errorf("Lag = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStartRefusesWhatCannotObserve(t *testing.T) {
	tests := map[string]Config{
		"no session": {Query: "SELECT k FROM ks.t WHERE k = ?", Poll: time.Millisecond, Limit: time.Second},
		"no query":   {Session: &gocql.Session{}, Poll: time.Millisecond, Limit: time.Second},
		"no poll":    {Session: &gocql.Session{}, Query: "SELECT k FROM ks.t WHERE k = ?", Limit: time.Second},
		"no limit":   {Session: &gocql.Session{}, Query: "SELECT k FROM ks.t WHERE k = ?", Poll: time.Millisecond},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Start(context.Background(), cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("Start = %v, want ErrConfig", err)
			}
		})
	}
}

func TestResultBound(t *testing.T) {
	r := Result{MaxGapMicros: 5000, ClockErrorMicros: 700}
	if got := r.Bound(); got != 5700 {
		t.Errorf("Bound = %d, want 5700", got)
	}
}

// A key whose reads fail waits twice as long after each failure, up to maxErrorPause, and
// goes back to Poll once a read answers (found or not).
func TestFailedReadsBackOff(t *testing.T) {
	o := &Observer{cfg: Config{Poll: 10 * time.Millisecond}}
	p := &pending{}
	var got []time.Duration
	for range 9 {
		p.failed++
		got = append(got, o.pause(p))
	}
	want := []time.Duration{20, 40, 80, 160, 320, 640, 1000, 1000, 1000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("pauses after 1..9 failures: %v, want %v ms", got, want)
		}
	}
	p.failed = 0
	if d := o.pause(p); d != 10*time.Millisecond {
		t.Errorf("after a read that answered: %v, want the 10ms poll", d)
	}
	slow := &Observer{cfg: Config{Poll: 3 * time.Second}}
	if d := slow.pause(&pending{failed: 4}); d != 3*time.Second {
		t.Errorf("a poll above the cap: %v, want the poll itself", d)
	}
}
