// Package capacity is the search for the highest open-loop rate a datacenter takes while it
// meets an objective: which rate to try next, whether a step met the objective, whether a
// step's p99 is known well enough to judge by, and whether the nodes have paid back the debt
// an overshooting step left. It holds no I/O: the writers run the steps (internal/writer).
package capacity

import (
	"fmt"
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
}

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
	case s.Low == 0:
		next = int64(float64(s.High) / s.Growth)
	default:
		next = s.Low + (s.High-s.Low)/2
	}
	if s.Low > 0 {
		next = max(next, s.Low+1)
	}
	if s.High > 0 {
		next = min(next, s.High-1)
	}
	return max(next, 1), "", true
}

// Record notes a step's outcome at rate.
func (s *Search) Record(rate int64, met bool) {
	s.steps++
	if s.misses == nil {
		s.misses = map[int64]int{}
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
