package sweep

import (
	"fmt"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
)

const maxMessage = 512

// Table computes one row per point from the runs that exist. Figures come from the point's
// succeeded runs; stopped tells that the sweep ended early, so points that never ran are
// Skipped rather than Pending.
func Table(o Observed, stopped bool) []cbv1.SweepPoint {
	repeats := Repeats(o.Sweep)
	rows := make([]cbv1.SweepPoint, 0, len(o.Points))
	for _, p := range o.Points {
		row := cbv1.SweepPoint{Point: int32(p.Index), Values: p.Strings()}
		var ok []*cbv1.Results
		running := false
		for r := range repeats {
			run := o.Runs[RunName(o.Sweep.Name, p.Index, r)]
			if run == nil {
				continue
			}
			row.Runs = append(row.Runs, run.Name)
			switch {
			case !lending.Finished(run):
				running = true
			case Succeeded(run):
				row.Succeeded++
				if run.Status.Results != nil {
					ok = append(ok, run.Status.Results)
				}
			default:
				row.Failed++
				if row.Message == "" {
					row.Message = truncate(fmt.Sprintf("BenchmarkRun %s failed: %s", run.Name, failureMessage(run)), maxMessage)
				}
			}
		}
		finished := int(row.Succeeded + row.Failed)
		switch {
		case running:
			row.Outcome = cbv1.PointRunning
		case row.Failed > 0 && (finished == repeats || stopped):
			row.Outcome = cbv1.PointFailed
		case finished == repeats:
			row.Outcome = cbv1.PointSucceeded
		case stopped:
			row.Outcome = cbv1.PointSkipped
		case len(row.Runs) > 0:
			row.Outcome = cbv1.PointRunning
		default:
			row.Outcome = cbv1.PointPending
		}
		aggregate(&row, ok)
		rows = append(rows, row)
	}
	return rows
}

// aggregate fills a row's figures from its succeeded runs' results. Percentiles come from
// the runs' merged sketches, as the percentiles of all their operations together; averaging
// the runs' percentiles would understate a tail that one repeat had. Runs that kept no
// sketches give the highest of their percentiles instead, an upper bound.
func aggregate(row *cbv1.SweepPoint, rs []*cbv1.Results) {
	if len(rs) == 0 {
		return
	}
	var ops, timeouts, attempted, attemptTimeouts, attempts int64
	var merged *sketch.Sketch
	mergeable := true
	var worst cbv1.Latency
	row.OpsPerSecondMin, row.P99Min = rs[0].OpsPerSecond, latency(rs[0]).P99
	for _, r := range rs {
		l := latency(r)
		ops += r.OpsPerSecond
		row.OpsPerSecondMin = min(row.OpsPerSecondMin, r.OpsPerSecond)
		row.OpsPerSecondMax = max(row.OpsPerSecondMax, r.OpsPerSecond)
		row.P99Min = min(row.P99Min, l.P99)
		row.P99Max = max(row.P99Max, l.P99)
		worst = cbv1.Latency{P50: max(worst.P50, l.P50), P99: max(worst.P99, l.P99), P999: max(worst.P999, l.P999)}
		e := r.Errors
		failed := e.WriteTimeout + e.ReadTimeout + e.Unavailable + e.Overloaded + e.ClientTimeout + e.Other
		row.Errors += failed
		timeouts += e.WriteTimeout + e.ReadTimeout + e.ClientTimeout
		attempted += r.Operations + failed
		a := r.AttemptErrors
		attemptTimeouts += a.WriteTimeout + a.ReadTimeout + a.ClientTimeout
		attempts += r.Attempts
		sk, err := results.ResponseSketch(r)
		if err != nil || sk == nil {
			mergeable = false
			continue
		}
		if merged == nil {
			merged = sk
		} else {
			merged.Merge(sk)
		}
	}
	n := int64(len(rs))
	row.OpsPerSecond = mean(ops, n)
	l := worst
	if mergeable && merged != nil {
		l = results.Latency(merged)
		row.RelativeAccuracy = l.RelativeAccuracy
	}
	row.P50, row.P99, row.P999 = l.P50, l.P99, l.P999
	row.TimeoutRatio = results.Ratio(timeouts, attempted)
	if attempts > 0 {
		row.TimeoutsPerAttempt = results.Ratio(attemptTimeouts, attempts)
	}
	if n > 1 && row.OpsPerSecond > 0 {
		row.OpsPerSecondSpread = results.Ratio(row.OpsPerSecondMax-row.OpsPerSecondMin, row.OpsPerSecond)
	}
	row.Bottleneck = verdict(rs)
	capacityAndCost(row, rs)
}

// verdict is the runs' common bottleneck verdict, Unclear when they disagree, empty when no
// run has one.
func verdict(rs []*cbv1.Results) cbv1.BottleneckVerdict {
	var v cbv1.BottleneckVerdict
	for _, r := range rs {
		if r.Bottleneck == nil {
			continue
		}
		if v != "" && v != r.Bottleneck.Verdict {
			return cbv1.BottleneckUnclear
		}
		v = r.Bottleneck.Verdict
	}
	return v
}

// latency is a run's write response latency, or its read latency if it made no writes, or
// its first kind of workload.operations' if it made neither (as results.ResponseSketch).
func latency(r *cbv1.Results) cbv1.Latency {
	if r.Writes != nil && r.Writes.Operations > 0 {
		return r.Writes.Response
	}
	if r.Reads != nil {
		return r.Reads.Response
	}
	if r.Writes != nil {
		return r.Writes.Response
	}
	if len(r.OperationsByKind) > 0 {
		return r.OperationsByKind[0].Response
	}
	return cbv1.Latency{}
}

// mean rounds half away from zero, in integers: the API has no floats.
func mean(sum, n int64) int64 {
	if n == 0 {
		return 0
	}
	return (sum + n/2) / n
}

// Counts are the totals behind a sweep's progress column.
type Counts struct {
	Points, Completed, Failed, Skipped int32
}

// Count tallies a table.
func Count(rows []cbv1.SweepPoint) Counts {
	c := Counts{Points: int32(len(rows))}
	for _, r := range rows {
		switch r.Outcome {
		case cbv1.PointSucceeded:
			c.Completed++
		case cbv1.PointFailed:
			c.Completed++
			c.Failed++
		case cbv1.PointSkipped:
			c.Skipped++
		}
	}
	return c
}

// Progress reads "3/8 done", with failed and skipped points when there are any.
func (c Counts) Progress() string {
	s := fmt.Sprintf("%d/%d done", c.Completed, c.Points)
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	if c.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", c.Skipped)
	}
	return s
}

// Best picks the best succeeded point: highest achieved throughput, lowest p99 or lowest timeout ratio,
// ties going to the higher throughput and then to the earlier point. Nil when no point
// succeeded.
// A point whose p99 is above maxP99 (when set) cannot be best: throughput counts only
// within the latency bound.
func Best(axes []cbv1.SweepAxis, rows []cbv1.SweepPoint, by cbv1.SweepMetric, maxP99 *int64) *cbv1.SweepBest {
	if by == "" {
		by = cbv1.BestByOpsPerSecond
	}
	var best *cbv1.SweepPoint
	for i := range rows {
		r := &rows[i]
		if r.Outcome != cbv1.PointSucceeded || r.Succeeded == 0 || (maxP99 != nil && r.P99 > *maxP99) {
			continue
		}
		if best == nil || better(r, best, by) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	var figure string
	switch by {
	case cbv1.BestByP99:
		figure = fmt.Sprintf("p99 %dus", best.P99)
	case cbv1.BestByTimeoutRatio:
		figure = fmt.Sprintf("timeouts %s", best.TimeoutRatio)
	case cbv1.BestByCapacity:
		figure = fmt.Sprintf("capacity %d ops/s", best.Capacity)
	case cbv1.BestByCost:
		figure = fmt.Sprintf("%s %s per million operations", best.CostPerMillionOperations, best.Currency)
	default:
		figure = fmt.Sprintf("%d ops/s", best.OpsPerSecond)
	}
	return &cbv1.SweepBest{
		Point:   best.Point,
		Values:  append([]string(nil), best.Values...),
		By:      by,
		Summary: truncate(fmt.Sprintf("%s (%s)", Assignments(axes, best.Values), figure), 256),
	}
}

func better(a, b *cbv1.SweepPoint, by cbv1.SweepMetric) bool {
	switch by {
	case cbv1.BestByP99:
		if a.P99 != b.P99 {
			return a.P99 < b.P99
		}
	case cbv1.BestByTimeoutRatio:
		ra, rb := ratio(a.TimeoutRatio), ratio(b.TimeoutRatio)
		if ra != rb {
			return ra < rb
		}
	case cbv1.BestByCapacity, cbv1.BestByCost:
		if better, decided := betterBy(a, b, by); decided {
			return better
		}
	}
	return a.OpsPerSecond > b.OpsPerSecond
}

// ratio reads a decimal ratio for comparison only; an unreadable one compares as worst.
func ratio(s string) float64 {
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 2
	}
	return f
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n-3], "") + "..."
}
