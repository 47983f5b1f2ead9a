package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
)

// capacityTable writes a capacity search's answer and its steps, in the order they ran.
func capacityTable(w *errWriter, c *cbv1.CapacityResults) {
	if c == nil {
		return
	}
	line := fmt.Sprintf("capacity %d ops/s (%s)", c.OpsPerSecond, c.Stop)
	if c.MissedOpsPerSecond > 0 {
		line += fmt.Sprintf(", lowest rate missed %d ops/s", c.MissedOpsPerSecond)
	}
	if c.Knee != nil {
		line += fmt.Sprintf(", bottleneck at the knee: %s", c.Knee.Verdict)
	}
	if c.DebtWaitMillis > 0 {
		line += fmt.Sprintf(", %s waiting for the nodes' debt", time.Duration(c.DebtWaitMillis)*time.Millisecond)
	}
	w.printf("%s\n", line)
	if c.Knee != nil {
		for _, e := range c.Knee.Evidence {
			w.printf("  %s\n", e)
		}
	}
	tw := w.table(tabwriter.AlignRight)
	tw.row("step\ttarget\tops/s\tp99\tp99.9\tp99 ±\truns\ttimeouts\tmissed\toutcome\tbottleneck\tdebt wait\t\n")
	for i, s := range c.Steps {
		tw.row("%d\t%d\t%d\t%s\t%s\t%s%%\t%d\t%d\t%d\t%s\t%s\t%s\t\n", i+1, s.TargetOpsPerSecond, s.OpsPerSecond,
			Micros(s.P99Micros), Micros(s.P999Micros), orDash(s.P99SpreadPercent), s.Runs, s.Timeouts, s.Missed,
			s.Outcome, orDash(string(s.Bottleneck)), time.Duration(s.DebtWaitMillis)*time.Millisecond)
	}
	tw.flush()
	for i, s := range c.Steps {
		if s.Reason != "" {
			w.printf("step %d missed: %s\n", i+1, s.Reason)
		}
		if s.DebtOutstanding != "" {
			w.printf("step %d left debt the wait gave up on: %s\n", i+1, s.DebtOutstanding)
		}
	}
	w.printf("\n")
}

// costLine writes what the window cost beside its throughput, when the run was priced.
func costLine(w *errWriter, c *cbv1.CostResults, opsPerSecond int64) {
	if c == nil {
		return
	}
	line := fmt.Sprintf("cost at %d ops/s: datacenter %s %s an hour", opsPerSecond, orDash(c.DatacenterPerHour), c.Currency)
	if c.PerMillionOperations != "" {
		line += fmt.Sprintf(", %s %s per million operations", c.PerMillionOperations, c.Currency)
	}
	if c.WritersPerHour != "" {
		line += fmt.Sprintf("; writers apart %s %s an hour, %s per million", c.WritersPerHour, c.Currency, orDash(c.WritersPerMillionOperations))
	}
	w.printf("%s\n", line)
	if c.Note != "" {
		w.printf("%s\n", c.Note)
	}
}

// capacityFigure puts every capacity search of the runs on the latency-throughput plane: a
// point per step at the rate it achieved and its p99, joined in order of rate, the objective
// as a dashed level, and the capacity found ringed (the highest step that met the objective:
// the knee). ok is false when no run searched.
func capacityFigure(runs []*cbv1.BenchmarkRun) (figure, bool) {
	f := figure{id: "capacity", title: "Capacity searches: each step's p99 against the rate it achieved"}
	p := panel{name: "capacity"}
	var xMax, yMax float64
	for i, run := range runs {
		r := run.Status.Results
		if r == nil || r.Capacity == nil || len(r.Capacity.Steps) == 0 {
			continue
		}
		c := r.Capacity
		steps := slices.Clone(c.Steps)
		slices.SortStableFunc(steps, func(a, b cbv1.CapacityStep) int { return cmp.Compare(a.OpsPerSecond, b.OpsPerSecond) })
		l := line{name: run.Name, color: color(i)}
		for _, s := range steps {
			l.points = append(l.points, [2]float64{float64(s.OpsPerSecond), ms(s.P99Micros)})
			xMax, yMax = max(xMax, float64(s.OpsPerSecond)), max(yMax, ms(s.P99Micros))
		}
		p.lines = append(p.lines, l)
		f.legend = append(f.legend, l)
		if m, ok := kneeMarker(run.Name, c); ok {
			p.markers = append(p.markers, m)
		}
		if cs := run.Spec.Capacity; cs != nil && cs.Objective.P99.Duration > 0 {
			obj := float64(cs.Objective.P99.Microseconds()) / 1000
			yMax = max(yMax, obj)
			p.lines = append(p.lines, line{name: run.Name + " objective", color: color(i), dash: true,
				points: [][2]float64{{0, obj}, {math.Inf(1), obj}}})
		}
	}
	if len(f.legend) == 0 {
		return f, false
	}
	f.x = roundAxis(xMax*1.05, "ops/s achieved")
	for i := range p.lines {
		for j := range p.lines[i].points {
			p.lines[i].points[j][0] = min(p.lines[i].points[j][0], f.x.hi)
		}
	}
	p.y = roundAxis(yMax*1.1, "p99 (ms)")
	f.legend = append(f.legend, line{name: "objective p99", color: styleColor, dash: true})
	f.panels = []panel{p}
	return f, true
}

// kneeMarker rings the step whose rate the search gave as its capacity.
func kneeMarker(name string, c *cbv1.CapacityResults) (marker, bool) {
	for _, s := range c.Steps {
		if s.Outcome == cbv1.CapacityMet && s.TargetOpsPerSecond == c.OpsPerSecond {
			return marker{x: float64(s.OpsPerSecond), y: ms(s.P99Micros),
				label: fmt.Sprintf("%s: capacity %s ops/s", name, numfmt.Count(c.OpsPerSecond)),
				attrs: fmt.Sprintf(`data-capacity="%d"`, c.OpsPerSecond)}, true
		}
	}
	return marker{}, false
}
