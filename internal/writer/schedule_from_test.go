package writer

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTimetableFrom: the parts of a capacity round, each a phase From its part's start, hand
// out exactly the operations one phase over the whole round would, each once.
func TestTimetableFrom(t *testing.T) {
	start := time.Unix(100, 0)
	cases := map[string]struct {
		rate int64
		rnd  func() *rand.Rand
	}{
		"uniform, rate a multiple of the parts": {rate: 10},
		"uniform, rate not a multiple":          {rate: 7},
		"poisson":                               {rate: 20, rnd: func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rnd := func() *rand.Rand {
				if tc.rnd == nil {
					return nil
				}
				return tc.rnd()
			}
			end := start.Add(3 * time.Second)
			whole := drain(newTimetable(phase{Start: start, End: end, Limit: -1, Rate: tc.rate}, 1, rnd()))
			var parts []time.Time
			var due int64
			for p := range 3 {
				ph := phase{Start: start, From: start.Add(time.Duration(p) * time.Second), End: start.Add(time.Duration(p+1) * time.Second), Limit: -1, Rate: tc.rate}
				tt := newTimetable(ph, 1, rnd())
				got := drain(tt)
				_, d := tt.finish()
				due += d
				parts = append(parts, got...)
			}
			if diff := cmp.Diff(whole, parts); diff != "" {
				t.Errorf("parts' operations differ from the whole round's (-whole +parts):\n%s", diff)
			}
			if due != int64(len(whole)) {
				t.Errorf("parts had %d due, the round %d operations", due, len(whole))
			}
		})
	}
}

// drain takes every operation of tt at its intended time.
func drain(tt *timetable) []time.Time {
	var out []time.Time
	for {
		tt.mu.Lock()
		at := tt.start.Add(tt.offset())
		tt.mu.Unlock()
		got, ok := tt.take(at)
		if !ok {
			return out
		}
		out = append(out, got)
	}
}
