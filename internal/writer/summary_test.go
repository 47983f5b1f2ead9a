package writer

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/summary"
)

// wide fills stats with latencies spread log-uniformly from 20 µs to 60 s, plus every
// outcome, the shape a run that hit a stalled node produces.
func wide(s *opStats, n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed))
	lo, hi := math.Log(20e3), math.Log(60e9)
	for range n {
		resp := time.Duration(math.Exp(lo + r.Float64()*(hi-lo)))
		s.record(&sample{outcome: OK, retries: r.IntN(3), bytes: 100, response: resp, service: resp / time.Duration(1+r.IntN(4)),
			paced: true, lag: resp / 100})
	}
	for o := WriteTimeout; o < numOutcomes; o++ {
		x := &sample{outcome: o, retries: 3, response: 10 * time.Second, service: 10 * time.Second}
		x.failed[o] = 4
		s.record(x)
	}
}

func TestSummaryFitsTerminationMessage(t *testing.T) {
	tests := map[string]struct {
		goroutines, perGoroutine int
		reads                    bool
		err                      string
	}{
		"writes only":            {goroutines: 4, perGoroutine: 50_000},
		"writes and reads":       {goroutines: 8, perGoroutine: 50_000, reads: true},
		"with a long error":      {goroutines: 2, perGoroutine: 20_000, reads: true, err: string(make([]byte, 5000))},
		"many goroutines merged": {goroutines: 512, perGoroutine: 500, reads: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ps := newPhaseStats(tc.goroutines)
			// Goroutine i records into slot i modulo the slots, as the engine's do.
			for i := range tc.goroutines {
				wide(ps[i%len(ps)][Write], tc.perGoroutine, uint64(i))
				if tc.reads {
					wide(ps[i%len(ps)][Read], tc.perGoroutine, uint64(i)+1000)
				}
			}
			lag, _, _ := summarizePace(ps)
			sum := &summary.Summary{Index: 3, Writers: 64, Start: 1, End: 2, Writes: summarize(ps.kind(Write)), Error: tc.err, Lag: lag}
			if tc.reads {
				sum.Reads = summarize(ps.kind(Read))
			}
			b, err := sum.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > summary.MaxBytes {
				t.Fatalf("summary is %d bytes, more than %d", len(b), summary.MaxBytes)
			}
			back, err := summary.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(tc.goroutines * tc.perGoroutine)
			if back.Writes.OK != want || back.Writes.Response.Count() != uint64(back.Writes.Operations()) {
				t.Errorf("decoded %d ok, %d in the sketch; want %d", back.Writes.OK, back.Writes.Response.Count(), want)
			}
			if back.Writes.Other != int64(tc.goroutines) || back.Writes.Retries == 0 || back.Writes.Attempts.Other != 4*int64(tc.goroutines) {
				t.Errorf("decoded counts lost: %+v", back.Writes)
			}
			// Coarsening may cost accuracy, but never more than the sketch's own bound.
			p99 := back.Writes.Response.Quantile(0.99)
			exact := sum.Writes.Response.Quantile(0.99)
			if acc := back.Writes.Response.RelativeAccuracy(); math.Abs(p99-exact) > 2*acc*exact {
				t.Errorf("p99 %.0f after encoding, %.0f before (accuracy %.3f)", p99, exact, acc)
			}
			t.Logf("%d bytes, sketch level %d", len(b), back.Writes.Response.Level())
		})
	}
}
