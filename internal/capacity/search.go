// Package capacity is the search for the highest open-loop rate a datacenter takes while it
// meets an objective: which rate to try next, whether a step met the objective, whether a
// step's p99 is known well enough to judge by, and whether the nodes have paid back the debt
// an overshooting step left. It holds no I/O: the writers run the steps (internal/writer).
package capacity

import (
	"fmt"
	"math"
	"time"
)

// Stop says why a search ended.
type Stop string

const (
	// Converged: the bracket between the highest rate that met the objective and the lowest
	// that did not is within the precision asked for.
	Converged Stop = "Converged"
	// StepLimit: the search ran out of steps; the capacity is the highest rate met so far (a
	// lower bound, and with no failing step above it, not a knee at all).
	StepLimit Stop = "StepLimit"
	// NothingMet: even the lowest rate the search may try (1 operation per second) missed the
	// objective.
	NothingMet Stop = "NothingMet"
)

// Search brackets the capacity and bisects the bracket. Until a step fails it multiplies the
// rate by Growth, until one passes it divides it by Growth; with both ends known it tries
// their middle. Its answer is the highest rate that met the objective.
//
// Before it calls a bracket converged it runs the bracket's missed end once more, unless that
// rate has missed twice already: the answer rests on that one miss, and a single step can
// miss for a reason that is not the rate (a first step on a node still compiling its hot
// code, a collection pause). A rate that meets on its second try counts as met, as a
// brute-force sweep would count it, and the search goes on above it, bounded by the lowest
// rate above it that missed.
//
// A step that missed because the nodes could not keep up completes what they can: its
// achieved rate falls short of its target, and the capacity lies near it (in an open loop a
// rate a few percent over what the nodes complete builds a queue that misses any p99 within a
// step). The search runs the last saturated step's achieved rate next, when it lies inside
// the bracket: also while it walks, since a node's first overshoot completes more than the
// ones after it, once flushes and compactions have caught up. Once it has run one, it walks
// from the end that moved last: the first step a Precision away, so that the
// bracket closes if it lands on the other side, each further step twice as far while the same
// end keeps moving, never past the bracket's middle. Near the knee that closes the bracket in
// two or three steps where bisecting a bracket as wide as Growth takes six.
type Search struct {
	// Start is the first rate tried.
	Start int64
	// Precision ends the search once High - Low <= Precision × Low.
	Precision float64
	// MaxSteps bounds the steps tried, counting the first.
	MaxSteps int
	// Growth is the factor between steps before the bracket closes (> 1).
	Growth float64

	// Low is the highest rate that met the objective (0: none yet); High the lowest above it
	// that did not (0: none yet).
	Low, High int64
	steps     int
	// misses counts the misses of each rate that missed and never met.
	misses map[int64]int
	// estimate is what the last saturated step achieved, until a step runs it (0: none).
	estimate int64
	// walking is set once an estimate has been run; then up says whether the last step
	// moved Low (it met) and reach how many steps before it moved the same end.
	walking, up bool
	reach       int
}

// maxReach caps the walk's doubling; the bracket's middle caps it long before.
const maxReach = 30

// Next is the rate of the next step, or false and why the search is over.
func (s *Search) Next() (int64, Stop, bool) {
	closed := s.Low > 0 && s.High > 0 && (s.High-s.Low <= 1 || float64(s.High-s.Low) <= s.Precision*float64(s.Low))
	if closed && s.misses[s.High] >= 2 {
		return 0, Converged, false
	}
	if s.Low == 0 && s.High > 0 && s.High <= 1 {
		return 0, NothingMet, false
	}
	if s.steps >= s.MaxSteps {
		return 0, StepLimit, false
	}
	if closed {
		return s.High, "", true
	}
	var next int64
	switch {
	case s.Low == 0 && s.High == 0:
		next = s.Start
	case s.High == 0:
		next = int64(float64(s.Low) * s.Growth)
	case s.Low == 0 && !s.walking && !s.estimateInside():
		next = int64(float64(s.High) / s.Growth)
	case s.estimateInside():
		next = s.estimate
	default:
		next = s.Low + (s.High-s.Low)/2
		if s.walking {
			next = s.walk(next)
		}
	}
	if s.Low > 0 {
		next = max(next, s.Low+1)
	}
	if s.High > 0 {
		next = min(next, s.High-1)
	}
	return max(next, 1), "", true
}

// estimateInside says whether the last saturated step's estimate is still to run and lies
// inside the bracket.
func (s *Search) estimateInside() bool {
	return s.estimate > s.Low && s.estimate < s.High
}

// walk is the next rate of the walk from the end that moved last, given the bracket's middle.
func (s *Search) walk(middle int64) int64 {
	shift := min(s.reach, maxReach)
	if s.up {
		// A miss at Low + d closes the bracket: d <= Precision × Low.
		d := max(int64(s.Precision*float64(s.Low)), 1) << shift
		return min(middle, s.Low+d)
	}
	// A meet at High - d closes it: d <= Precision × (High - d).
	d := max(s.High-int64(math.Ceil(float64(s.High)/(1+s.Precision))), 1) << shift
	return max(middle, s.High-d)
}

// Outcome is what a step shows the search.
type Outcome struct {
	Met bool
	// Achieved is the rate the step completed, operations per second (0: not known).
	Achieved int64
	// Unsent counts the starts the writers never sent: every request they may have in flight
	// was, and the backlog behind them outgrew its bound.
	Unsent int64
}

// saturated says whether a step that missed did so because the nodes could not keep up:
// writers that could not send, and a rate achieved short of the target by more than the
// precision. A step that missed on latency alone completes what it was asked, up to the
// requests in flight at its end; so does a step at a few operations per second, whose
// achieved rate rounds down.
func (s *Search) saturated(rate int64, o Outcome) bool {
	return !o.Met && o.Unsent > 0 && o.Achieved > 0 && float64(o.Achieved) < float64(rate)*(1-s.Precision)
}

// Record notes a step's outcome at rate. What a saturated step achieved is the next rate to
// try, when it lies inside the bracket.
func (s *Search) Record(rate int64, o Outcome) {
	met := o.Met
	s.steps++
	if s.misses == nil {
		s.misses = map[int64]int{}
	}
	switch {
	case s.estimate > 0 && rate == s.estimate:
		s.walking, s.up, s.reach, s.estimate = true, met, 0, 0
	case s.walking && met == s.up:
		s.reach++
	case s.walking:
		s.up, s.reach = met, 0
	}
	if s.saturated(rate, o) {
		s.estimate = o.Achieved
	}
	if met {
		delete(s.misses, rate)
		s.Low = max(s.Low, rate)
	} else {
		s.misses[rate]++
	}
	// High is the lowest rate above Low that missed: a rate that met on a second try no
	// longer bounds the bracket, and a miss at or below Low does not either.
	s.High = 0
	for r := range s.misses {
		if r > s.Low && (s.High == 0 || r < s.High) {
			s.High = r
		}
	}
}

// Confirming says whether rate, the next step's, runs again a rate that missed once.
func (s *Search) Confirming(rate int64) bool { return s.misses[rate] > 0 }

// Estimating says whether rate, the next step's, is what a saturated step achieved.
func (s *Search) Estimating(rate int64) bool { return s.estimate > 0 && s.estimate == rate }

// Extensions is how many rounds the step at rate may run after its first while its p99 is
// not yet known to the spread asked: up to, but none for a confirmation. The rate was run in
// full once, with every extension it needed, and its figures stand; the second try asks only
// whether it misses again, which its first round answers as a brute-force sweep's single run
// at that rate would.
func (s *Search) Extensions(rate int64, upTo int) int {
	if s.Confirming(rate) {
		return 0
	}
	return upTo
}

// Steps is how many steps were recorded.
func (s *Search) Steps() int { return s.steps }

// Validate refuses a search that could not end or could not move.
func (s *Search) Validate() error {
	switch {
	case s.Start < 1:
		return fmt.Errorf("the first rate must be at least 1 operation per second, not %d", s.Start)
	case s.Precision <= 0 || s.Precision >= 1:
		return fmt.Errorf("precision must be in (0, 1), not %g", s.Precision)
	case s.MaxSteps < 1:
		return fmt.Errorf("the step limit must be at least 1, not %d", s.MaxSteps)
	case s.Growth <= 1:
		return fmt.Errorf("growth must be above 1, not %g", s.Growth)
	}
	return nil
}

// roundOverhead is what a round costs beyond its load: reading the nodes, planning, the
// writers' start lead and collecting their summaries.
const roundOverhead = 30 * time.Second

// Longest is the longest a search can take: every step run 1 + extensions times, and every
// one followed by a debt wait to its limit.
func Longest(steps, extensions int, step, debtWait time.Duration) time.Duration {
	perStep := time.Duration(1+extensions)*(step+roundOverhead) + debtWait
	return time.Duration(steps) * perStep
}
