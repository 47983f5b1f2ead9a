package capacity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runSaturating plays a search against a datacenter that completes at most completes
// operations per second (0: every step reports no achieved rate), and at most later (when
// not 0) once it has been saturated once. Above that the writers leave starts unsent, unless
// sendsAll.
func runSaturating(s Search, met func(rate int64, try int) bool, completes, later int64, sendsAll bool) ([]int64, int64, Stop) {
	var tried []int64
	tries := map[int64]int{}
	for {
		if later > 0 && len(tried) > 0 && tried[len(tried)-1] > completes {
			completes = later
		}
		rate, stop, ok := s.Next()
		if !ok {
			return tried, s.Low, stop
		}
		tried = append(tried, rate)
		tries[rate]++
		o := Outcome{Met: met(rate, tries[rate])}
		if completes > 0 {
			o.Achieved = min(rate, completes)
		}
		if rate > completes && !sendsAll {
			o.Unsent = rate - completes
		}
		s.Record(rate, o)
	}
}

// A miss that completed well short of its rate shows where the nodes saturate: the search
// runs that rate next and walks from it, where bisection would halve a bracket as wide as
// Growth six times.
func TestSearchWalksFromWhatASaturatedStepAchieved(t *testing.T) {
	below := func(knee int64) func(int64, int) bool {
		return func(rate int64, _ int) bool { return rate <= knee }
	}
	cases := map[string]struct {
		search    Search
		met       func(rate int64, try int) bool
		completes int64
		later     int64
		sendsAll  bool
		tried     []int64
		answer    int64
		stop      Stop
	}{
		// 8,000 completes 5,400: 5,400 misses, and one step a Precision below it meets,
		// which closes the bracket; the confirmation of 5,400 ends it.
		"the knee just below what saturation achieves": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(5300), completes: 5400,
			tried:  []int64{1000, 2000, 4000, 8000, 5400, 5295, 5400},
			answer: 5295, stop: Converged,
		},
		// The estimate meets: the walk goes up a Precision, then twice that, and back.
		"the knee above what saturation achieves": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(5300), completes: 5000,
			tried:  []int64{1000, 2000, 4000, 8000, 5000, 5100, 5304, 5202, 5304},
			answer: 5202, stop: Converged,
		},
		// A first step that misses saturated gives the estimate before any rate met.
		"the first step saturated": {
			search: Search{Start: 10000, Precision: 0.05, MaxSteps: 20, Growth: 2},
			met:    below(3000), completes: 3100,
			tried:  []int64{10000, 3100, 2953, 3100},
			answer: 2953, stop: Converged,
		},
		// The confirmation of the estimate meets: the walk goes on up from it, not to the
		// middle of a bracket that reaches back to 8,000.
		"a confirmation that meets resumes the walk": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met: func(rate int64, try int) bool {
				return rate <= 5300 || rate == 5400 && try > 1
			},
			completes: 5400,
			tried:     []int64{1000, 2000, 4000, 8000, 5400, 5295, 5400, 5616, 5508, 5508},
			answer:    5400, stop: Converged,
		},
		// A fresh node's first overshoot completes more than later ones, once flushes and
		// compactions have caught up: the step at its estimate saturates in turn, and what it
		// completed is run next.
		"each saturated step gives the next estimate": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(4950), completes: 5900, later: 5000,
			tried:  []int64{1000, 2000, 4000, 8000, 5900, 5000, 4902, 5000},
			answer: 4902, stop: Converged,
		},
		// A node whose throughput collapsed under overload achieved less than a rate that met:
		// the estimate lies outside the bracket and the search bisects as it would without it.
		"an estimate below the bracket is not run": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(5300), completes: 3000,
			tried:  []int64{1000, 2000, 4000, 8000, 6000, 5000, 5500, 5250, 5375, 5312, 5312},
			answer: 5250, stop: Converged,
		},
		// Writers that sent every start were not held back by the nodes: what they fell
		// short by is the requests in flight at the step's end, or rounding at a few
		// operations per second, and the search bisects.
		"a miss that sent every start gives no estimate": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(5300), completes: 5400, sendsAll: true,
			tried:  []int64{1000, 2000, 4000, 8000, 6000, 5000, 5500, 5250, 5375, 5312, 5312},
			answer: 5250, stop: Converged,
		},
		"a miss that kept up gives no estimate": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(5300), completes: 1 << 40,
			tried:  []int64{1000, 2000, 4000, 8000, 6000, 5000, 5500, 5250, 5375, 5312, 5312},
			answer: 5250, stop: Converged,
		},
		// The walk's doubling: the estimate and the steps below it keep missing, each step
		// twice as far below the last, until one meets; then it walks up from there.
		"the knee well below the estimate": {
			search: Search{Start: 1000, Precision: 0.02, MaxSteps: 20, Growth: 2},
			met:    below(4700), completes: 5400,
			tried:  []int64{1000, 2000, 4000, 8000, 5400, 5295, 5089, 4693, 4786, 4786},
			answer: 4693, stop: Converged,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tried, answer, stop := runSaturating(tc.search, tc.met, tc.completes, tc.later, tc.sendsAll)
			if diff := cmp.Diff(tc.tried, tried); diff != "" {
				t.Errorf("rates tried (-want +got):\n%s", diff)
			}
			if answer != tc.answer || stop != tc.stop {
				t.Errorf("answer %d (%s), want %d (%s)", answer, stop, tc.answer, tc.stop)
			}
		})
	}
}
