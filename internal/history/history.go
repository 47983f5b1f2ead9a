// Package history reads a series of runs of one experiment and finds where its figures
// changed: the runs' results in time order, grouped by experiment, each figure's change
// points (internal/changepoint), and a gate that tells whether the newest run regressed.
package history

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/changepoint"
)

// Figure is one figure of a run followed over the series.
type Figure struct {
	// Name as tables show it, and Column as CSV and Otava name it.
	Name, Column string
	// HigherIsBetter is true for throughput, false for latency and timeouts.
	HigherIsBetter bool
	// Unit of the values: "ops/s", "us" or "" (a ratio).
	Unit  string
	value func(*cbv1.Results) (float64, bool)
}

func opsLatency(op func(*cbv1.Results) *cbv1.OperationResults, q func(cbv1.Latency) int64) func(*cbv1.Results) (float64, bool) {
	return func(r *cbv1.Results) (float64, bool) {
		o := op(r)
		if o == nil || o.Operations == 0 {
			return 0, false
		}
		return float64(q(o.Response)), true
	}
}

func writes(r *cbv1.Results) *cbv1.OperationResults { return r.Writes }
func reads(r *cbv1.Results) *cbv1.OperationResults  { return r.Reads }
func p50(l cbv1.Latency) int64                      { return l.P50 }
func p99(l cbv1.Latency) int64                      { return l.P99 }
func p999(l cbv1.Latency) int64                     { return l.P999 }

// Figures are the figures followed, in table order: throughput, the response latency of
// writes and reads (from the intended start, what the application sees), and timeouts.
var Figures = []Figure{
	{Name: "ops/s", Column: "ops_per_second", HigherIsBetter: true, Unit: "ops/s",
		value: func(r *cbv1.Results) (float64, bool) { return float64(r.OpsPerSecond), true }},
	{Name: "write p50", Column: "write_p50_us", Unit: "us", value: opsLatency(writes, p50)},
	{Name: "write p99", Column: "write_p99_us", Unit: "us", value: opsLatency(writes, p99)},
	{Name: "write p99.9", Column: "write_p999_us", Unit: "us", value: opsLatency(writes, p999)},
	{Name: "read p50", Column: "read_p50_us", Unit: "us", value: opsLatency(reads, p50)},
	{Name: "read p99", Column: "read_p99_us", Unit: "us", value: opsLatency(reads, p99)},
	{Name: "read p99.9", Column: "read_p999_us", Unit: "us", value: opsLatency(reads, p999)},
	{Name: "timeouts/op", Column: "timeouts_per_operation", Unit: "", value: func(r *cbv1.Results) (float64, bool) {
		v, err := strconv.ParseFloat(r.TimeoutsPerOperation, 64)
		return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	}},
}

// FigureNamed finds a figure by its Name or Column.
func FigureNamed(name string) (Figure, bool) {
	for _, f := range Figures {
		if f.Name == name || f.Column == name {
			return f, true
		}
	}
	return Figure{}, false
}

// Run is one run's place in a series.
type Run struct {
	Name       string `json:"name"`
	Experiment string `json:"experiment"`
	// Time is the start of the run's measured window.
	Time time.Time `json:"time"`
	// Source is the file the run was read from, or namespace/name in a cluster.
	Source string `json:"source"`
	// Commit is the git commit that added the file, when it is in a git repository.
	Commit string `json:"commit,omitempty"`
	// Values are the run's figures by Column; a figure the run did not measure is absent.
	Values map[string]float64 `json:"values"`
}

// FromRun takes what a succeeded run measured; false for a run with no results or one that
// did not succeed (a failed run is not a point of the series).
func FromRun(run *cbv1.BenchmarkRun, source, commit string) (Run, bool) {
	r := run.Status.Results
	if r == nil || run.Status.Phase != cbv1.PhaseSucceeded {
		return Run{}, false
	}
	out := Run{Name: run.Name, Experiment: ExperimentOf(run), Time: r.WindowStart.UTC(), Source: source, Commit: commit,
		Values: map[string]float64{}}
	for _, f := range Figures {
		if v, ok := f.value(r); ok {
			out.Values[f.Column] = v
		}
	}
	return out, true
}

// generateNameAlphabet is the alphabet of the suffix Kubernetes appends to generateName.
const generateNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// ExperimentOf is the experiment a run belongs to: its cassbench.io/experiment label, else
// its name without its last dash-separated part when that part is a suffix that numbers or
// tells apart runs of one experiment (digits as in a date or a repeat, r and digits, or the
// five characters of a generateName). Never the spec: a changed spec is what a series shows.
func ExperimentOf(run *cbv1.BenchmarkRun) string {
	if v := run.Labels[cbv1.ExperimentLabel]; v != "" {
		return v
	}
	i := strings.LastIndexByte(run.Name, '-')
	if i <= 0 {
		return run.Name
	}
	suffix := run.Name[i+1:]
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	if digits(suffix) || (suffix[0] == 'r' && digits(suffix[1:])) ||
		(len(suffix) == 5 && strings.Trim(suffix, generateNameAlphabet) == "") {
		return run.Name[:i]
	}
	return run.Name
}

// Change is a significant change of one figure of a series.
type Change struct {
	Figure string `json:"figure"`
	// Run is the first run after the change, and Index its place in the series.
	Run   string `json:"run"`
	Index int    `json:"index"`
	// Before and After are the figure's means over the runs since the previous change and
	// until the next.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Percent is the change of the mean in percent of Before (absent when Before is 0).
	Percent *float64 `json:"percent,omitempty"`
	// PValue is the permutation test's.
	PValue float64 `json:"pValue"`
	// Regression says the figure got worse.
	Regression bool `json:"regression"`
}

// Describe says what changed, where and how surely.
func (c Change) Describe() string {
	way := "an improvement"
	if c.Regression {
		way = "a regression"
	}
	size := "from 0"
	if c.Percent != nil {
		size = fmt.Sprintf("%+.1f%%", *c.Percent)
	}
	return fmt.Sprintf("%s %s at %s (p = %.3g): %s -> %s, %s", c.Figure, size, c.Run, c.PValue,
		formatValue(c.Before), formatValue(c.After), way)
}

// Series is the runs of one experiment in time order, and what changed.
type Series struct {
	Experiment string   `json:"experiment"`
	Runs       []Run    `json:"runs"`
	Changes    []Change `json:"changes"`
}

// Group puts runs into one series per experiment, by experiment name, each in time order
// (then by name).
func Group(runs []Run) []Series {
	by := map[string][]Run{}
	for _, r := range runs {
		by[r.Experiment] = append(by[r.Experiment], r)
	}
	out := make([]Series, 0, len(by))
	for name, rs := range by {
		sort.SliceStable(rs, func(i, j int) bool {
			if !rs[i].Time.Equal(rs[j].Time) {
				return rs[i].Time.Before(rs[j].Time)
			}
			return rs[i].Name < rs[j].Name
		})
		out = append(out, Series{Experiment: name, Runs: rs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Experiment < out[j].Experiment })
	return out
}

// values is a figure over the runs that measured it, with their places in the series.
func (s *Series) values(f Figure) (vals []float64, at []int) {
	for i, r := range s.Runs {
		if v, ok := r.Values[f.Column]; ok {
			vals = append(vals, v)
			at = append(at, i)
		}
	}
	return vals, at
}

// Analyze finds the changes of every figure of the series.
func (s *Series) Analyze(opt changepoint.Options) error {
	s.Changes = nil
	for _, f := range Figures {
		vals, at := s.values(f)
		changes, err := changepoint.Detect(vals, opt)
		if err != nil {
			return fmt.Errorf("experiment %s, %s: %w", s.Experiment, f.Name, err)
		}
		for _, c := range changes {
			s.Changes = append(s.Changes, s.change(f, c, at))
		}
	}
	return nil
}

func (s *Series) change(f Figure, c changepoint.Change, at []int) Change {
	out := Change{Figure: f.Name, Run: s.Runs[at[c.Index]].Name, Index: at[c.Index], Before: c.Before.Mean,
		After: c.After.Mean, PValue: c.PValue}
	if c.Before.Mean != 0 {
		p := 100 * c.Relative()
		out.Percent = &p
	}
	out.Regression = (f.HigherIsBetter && c.After.Mean < c.Before.Mean) || (!f.HigherIsBetter && c.After.Mean > c.Before.Mean)
	return out
}

func formatValue(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
