package history

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/cassbench/cassbench/internal/changepoint"
)

// Verdict is what the gate decided about the newest run of a series.
type Verdict string

const (
	// Passed: no figure of the newest run is a significant regression.
	Passed Verdict = "passed"
	// Regressed: at least one figure is.
	Regressed Verdict = "regressed"
	// TooLittleHistory: too few runs came before the newest to tell.
	TooLittleHistory Verdict = "too little history"
)

// GateOptions tune Gate.
type GateOptions struct {
	// MinHistory is the fewest runs before the newest that the gate judges with.
	MinHistory int
	// Window: a change among the newest Window runs that made a figure worse fails the gate
	// (it keeps failing until Window runs have followed it, or the history is cut there).
	Window int
	// MinChangePercent is the smallest change, in percent, that fails the gate.
	MinChangePercent float64
	// Detect tunes the change-point detection.
	Detect changepoint.Options
	// NewestAlpha is the level of the test of the newest run alone (0: that test is off).
	NewestAlpha float64
}

// DefaultGate are cassbench gate's defaults. CI runs the gate after every run, so its false
// alarms add up over a series: the test of the newest run alone is held to 0.1% so that, with
// the change points at 1%, a series of 30 runs without change fails it at least once in 2.5%
// of simulations, while a 5% drop at 1.5% noise fails it within 5 runs in 95%
// (gate_simulation_test.go).
var DefaultGate = GateOptions{MinHistory: 9, Window: 5, Detect: changepoint.Defaults, NewestAlpha: 0.001}

// percentileFloor is the smallest change of a latency percentile the gate counts: twice the
// 1% relative accuracy of the sketches the percentiles come from, so that two runs whose
// percentiles fall in neighbouring buckets do not fail it.
const percentileFloor = 2.0

// Finding is one figure's regression.
type Finding struct {
	Figure string `json:"figure"`
	// How: "change point" (a change among the newest runs) or "newest run" (the newest run
	// alone, against the runs since the last change).
	How string `json:"how"`
	// Run is where it started; Before and After the figure's mean either side.
	Run     string  `json:"run"`
	Before  float64 `json:"before"`
	After   float64 `json:"after"`
	Percent float64 `json:"percent"`
	PValue  float64 `json:"pValue"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %+.1f%% (%s -> %s) from %s: %s, p = %.3g", f.Figure, f.Percent, formatValue(f.Before),
		formatValue(f.After), f.Run, f.How, f.PValue)
}

// GateResult is the gate's decision for one series.
type GateResult struct {
	Experiment string    `json:"experiment"`
	Newest     string    `json:"newest"`
	History    int       `json:"history"`
	Verdict    Verdict   `json:"verdict"`
	Findings   []Finding `json:"findings,omitempty"`
	// Reason says why, in a sentence.
	Reason string `json:"reason"`
}

// Gate judges the newest run of a series against the runs before it. Each figure is judged
// two ways, and either fails the gate: a change point (E-divisive means over the whole
// series) among the newest Window runs that made it worse, which catches a drop a few runs
// after it happened even when each run alone is within the noise; and the newest run alone
// against the runs since the figure's last change, by the one-sided t-test of a new
// observation against a sample (its prediction interval), which catches a large drop at once.
func Gate(s Series, o GateOptions) (GateResult, error) {
	res := GateResult{Experiment: s.Experiment, Verdict: Passed}
	if len(s.Runs) == 0 {
		return res, fmt.Errorf("experiment %s has no runs", s.Experiment)
	}
	if o.MinHistory < 2 || o.Window < 1 {
		return res, fmt.Errorf("the gate needs a history of at least 2 runs and a window of at least 1, not %d and %d",
			o.MinHistory, o.Window)
	}
	newest := len(s.Runs) - 1
	res.Newest, res.History = s.Runs[newest].Name, newest
	if newest < o.MinHistory {
		res.Verdict = TooLittleHistory
		res.Reason = fmt.Sprintf("%d runs of %s came before %s; the gate needs %d", newest, s.Experiment, res.Newest, o.MinHistory)
		return res, nil
	}
	for _, f := range Figures {
		finding, err := gateFigure(&s, f, o)
		if err != nil {
			return res, err
		}
		if finding != nil {
			res.Findings = append(res.Findings, *finding)
		}
	}
	if len(res.Findings) > 0 {
		res.Verdict = Regressed
		res.Reason = fmt.Sprintf("%s regressed against %d runs before it", res.Newest, newest)
	} else {
		res.Reason = fmt.Sprintf("no figure of %s is a significant regression against %d runs before it", res.Newest, newest)
	}
	return res, nil
}

func gateFigure(s *Series, f Figure, o GateOptions) (*Finding, error) {
	vals, at := s.values(f)
	if len(vals) == 0 || at[len(at)-1] != len(s.Runs)-1 || len(vals)-1 < o.MinHistory {
		return nil, nil // the newest run did not measure it, or too few before it did
	}
	floor := o.MinChangePercent
	if f.Unit == "us" {
		floor = math.Max(floor, percentileFloor)
	}
	worse := func(before, after float64) (float64, bool) {
		if before == 0 {
			return 0, false
		}
		pct := 100 * (after/before - 1)
		bad := (f.HigherIsBetter && pct < 0) || (!f.HigherIsBetter && pct > 0)
		return pct, bad && math.Abs(pct) >= floor
	}
	changes, err := changepoint.Detect(vals, o.Detect)
	if err != nil {
		return nil, fmt.Errorf("experiment %s, %s: %w", s.Experiment, f.Name, err)
	}
	start := 0
	if len(changes) > 0 {
		c := changes[len(changes)-1]
		start = c.Index
		if pct, bad := worse(c.Before.Mean, c.After.Mean); bad && c.Index >= len(vals)-o.Window {
			return &Finding{Figure: f.Name, How: "change point", Run: s.Runs[at[c.Index]].Name, Before: c.Before.Mean,
				After: c.After.Mean, Percent: pct, PValue: c.PValue}, nil
		}
	}
	history := vals[start : len(vals)-1]
	if len(history) < 3 || o.NewestAlpha == 0 {
		return nil, nil
	}
	x := vals[len(vals)-1]
	mean, sd := meanSD(history)
	if sd == 0 {
		return nil, nil // no noise to judge a difference by
	}
	n := float64(len(history))
	t := (x - mean) / (sd * math.Sqrt(1+1/n))
	if f.HigherIsBetter {
		t = -t
	}
	p := upperTail(t, n-1)
	if pct, bad := worse(mean, x); bad && p <= o.NewestAlpha {
		return &Finding{Figure: f.Name, How: "newest run", Run: s.Runs[len(s.Runs)-1].Name, Before: mean, After: x,
			Percent: pct, PValue: p}, nil
	}
	return nil, nil
}

// upperTail is P(T > t) for Student's t with nu degrees of freedom, from the regularized
// incomplete beta function (Abramowitz and Stegun 26.7.1): mathext alone, without the
// matrix packages gonum's distributions bring into the manager.
func upperTail(t, nu float64) float64 {
	half := 0.5 * mathext.RegIncBeta(nu/2, 0.5, nu/(nu+t*t))
	if t > 0 {
		return half
	}
	return 1 - half
}

// meanSD is the mean and the sample standard deviation.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}
