package report

import (
	"fmt"
	"math"
	"strconv"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
)

// hdrTicks are the percentiles an HdrHistogram plot labels, placed at log10(1/(1-p)) so that
// each further nine gets the same width: the tail is where the differences are.
var hdrTicks = []struct {
	q     float64
	label string
}{{0.5, "50%"}, {0.9, "90%"}, {0.99, "99%"}, {0.999, "99.9%"}, {0.9999, "99.99%"}}

func hdrX(q float64) float64 { return math.Log10(1 / (1 - q)) }

// timelineFigure puts every run's throughput above its p99, interval by interval, on one
// time axis, and under them what the servers did on the same axis: the deepest request
// queue, and the compactions, flushes and GC pauses of each interval. A dip in one panel
// lines up with the spike, the flush or the pause in another.
func timelineFigure(runs []*cbv1.BenchmarkRun) (figure, bool) {
	f := figure{id: "timeline", title: "Throughput and p99 response over the measured window"}
	ops := panel{name: "throughput"}
	p99 := panel{name: "p99"}
	var xMax, opsMax, p99Max float64
	for i, run := range runs {
		r := run.Status.Results
		if r == nil || r.Timeline == nil || len(r.Timeline.Points) == 0 {
			continue
		}
		a := line{name: run.Name, color: color(i)}
		b := a
		spans, end := stretches(r.Timeline)
		for _, s := range spans {
			a.points = append(a.points, [2]float64{s.middle(), s.opsPerSecond})
			b.points = append(b.points, [2]float64{s.middle(), s.p99Millis})
			opsMax, p99Max = max(opsMax, s.opsPerSecond), max(p99Max, s.p99Millis)
		}
		xMax = max(xMax, end)
		ops.lines, p99.lines = append(ops.lines, a), append(p99.lines, b)
		f.legend = append(f.legend, a)
	}
	if len(ops.lines) == 0 {
		return f, false
	}
	ops.y = roundAxis(opsMax*1.05, "ops/s")
	p99.y = roundAxis(p99Max*1.05, "p99 (ms)")
	ops.bands = disruptionBands(runs)
	p99.bands = ops.bands
	f.panels = []panel{ops, p99}
	if pending, work, ok := serverPanels(runs, xMax); ok {
		f.title = "Throughput, p99 response and the servers over the measured window"
		f.panels = append(f.panels, pending, work)
		f.legend = append(f.legend, line{name: "compactions", color: styleColor, bars: &bars{fill: barSolid}},
			line{name: "flushes", color: styleColor, bars: &bars{fill: barLight}},
			line{name: "GC pauses, ms (right)", color: styleColor, bars: &bars{fill: barOutline}})
	}
	f.x = spanAxis(xMax, "seconds into the measured window")
	return f, true
}

// styleColor draws the legend entries that explain a line style rather than name a run.
const styleColor = "#555"

// serverPanels draws every run's server timeline: the deepest request-stage queue at its
// samples in one panel, and in the next the compactions and flushes finished and the GC
// pauses' milliseconds (right axis) of each interval, as bars side by side in the interval:
// they are counts of the interval, not levels to read between samples. The time axis ends
// at end, in seconds, with the clients' timelines: an interval that runs past it is drawn
// over the part inside. ok is false when no run has a server timeline.
func serverPanels(runs []*cbv1.BenchmarkRun, end float64) (pending, work panel, ok bool) {
	pending = panel{name: "server-pending"}
	work = panel{name: "server-work", hasY2: true}
	var pendingMax, workMax, gcMax float64
	has := func(run *cbv1.BenchmarkRun) bool {
		r := run.Status.Results
		return r != nil && r.Timeline != nil && r.Server != nil && r.Server.Timeline != nil && len(r.Server.Timeline.Points) > 0
	}
	slots, slot := 0, 0
	for _, run := range runs {
		if has(run) {
			slots += 3
		}
	}
	for i, run := range runs {
		if !has(run) {
			continue
		}
		tl := run.Status.Results.Server.Timeline
		width := float64(tl.IntervalMillis) / 1000
		q := line{name: run.Name + " pending", color: color(i)}
		c := line{name: run.Name + " compactions", color: color(i), bars: &bars{width, slot, slots, barSolid}}
		fl := line{name: run.Name + " flushes", color: color(i), bars: &bars{width, slot + 1, slots, barLight}}
		gc := line{name: run.Name + " GC ms", color: color(i), right: true, bars: &bars{width, slot + 2, slots, barOutline}}
		slot += 3
		for _, p := range tl.Points {
			from := float64(p.OffsetMillis) / 1000
			if from >= end {
				continue
			}
			x := (from + min(from+width, end)) / 2
			q.points = append(q.points, [2]float64{x, float64(p.PendingPeak)})
			c.points = append(c.points, [2]float64{x, float64(p.Compactions)})
			fl.points = append(fl.points, [2]float64{x, float64(p.Flushes)})
			gc.points = append(gc.points, [2]float64{x, float64(p.GCMillis)})
			pendingMax = max(pendingMax, float64(p.PendingPeak))
			workMax = max(workMax, float64(p.Compactions), float64(p.Flushes))
			gcMax = max(gcMax, float64(p.GCMillis))
		}
		pending.lines = append(pending.lines, q)
		work.lines = append(work.lines, c, fl, gc)
	}
	if len(pending.lines) == 0 {
		return pending, work, false
	}
	// An idle server still gets a readable axis: 0 to 1 rather than 0 to 0.
	pending.y = roundAxis(max(pendingMax*1.05, 1), "queued tasks (peak)")
	work.y = roundAxis(max(workMax*1.05, 1), "finished per interval")
	work.y2 = roundAxis(max(gcMax*1.05, 1), "GC pauses (ms)")
	return pending, work, true
}

// distributionFigure draws each run's response latency by percentile from its merged
// sketch, on the HDR percentile axis.
func distributionFigure(runs []*cbv1.BenchmarkRun) (figure, bool) {
	f := figure{id: "distribution", title: "Response latency by percentile (merged sketch, every writer)"}
	p := panel{name: "distribution"}
	var hi float64
	for i, run := range runs {
		r := run.Status.Results
		if r == nil {
			continue
		}
		sk, err := results.ResponseSketch(r)
		if err != nil || sk == nil || sk.Count() == 0 {
			continue
		}
		l := line{name: run.Name, color: color(i)}
		// Steps of 0.1 on the HDR axis: 38 points from p50 to p99.99.
		for x := hdrX(0.5); x <= 4+1e-9; x += 0.1 {
			q := 1 - math.Pow(10, -x)
			v := sk.Quantile(q) / 1000
			l.points = append(l.points, [2]float64{x, v})
			hi = max(hi, v)
		}
		p.lines = append(p.lines, l)
		f.legend = append(f.legend, l)
	}
	if len(p.lines) == 0 {
		return f, false
	}
	f.x = axis{lo: hdrX(0.5), hi: 4, label: "percentile (each further nine gets the same width)"}
	for _, t := range hdrTicks {
		f.x.ticks = append(f.x.ticks, tick{hdrX(t.q), t.label})
	}
	p.y = roundAxis(hi*1.05, "response (ms)")
	f.panels = []panel{p}
	return f, true
}

// sweepFigure draws a sweep's throughput (solid, left axis) and p99 (dashed, right axis)
// against its first axis, a pair of lines per combination of the other axes, whiskers over
// the repeats' range, and the best point ringed.
func sweepFigure(sw *cbv1.BenchmarkSweep, n int) (figure, bool) {
	ticks, numeric, all := sweepSeries(sw)
	f := figure{id: "sweep" + strconv.Itoa(n), title: sw.Name + ": throughput (solid, left) and p99 response (dashed, right)"}
	if len(all) == 0 {
		return f, false
	}
	p := panel{name: "sweep", hasY2: true}
	var lo, hi, opsMax, p99Max float64 = math.Inf(1), math.Inf(-1), 0, 0
	for i, s := range all {
		name := s.label
		if name == "" {
			name = sw.Name
		}
		ops := line{name: name, color: color(i)}
		p99 := line{name: name + " p99", color: color(i), right: true, dash: true}
		for j := range s.x {
			ops.points = append(ops.points, [2]float64{s.x[j], s.ops[j]})
			ops.whiskers = append(ops.whiskers, [2]float64{s.ops[j] - s.opsLow[j], s.ops[j] + s.opsHigh[j]})
			p99.points = append(p99.points, [2]float64{s.x[j], s.p99[j]})
			lo, hi = min(lo, s.x[j]), max(hi, s.x[j])
			opsMax, p99Max = max(opsMax, s.ops[j]+s.opsHigh[j]), max(p99Max, s.p99[j])
		}
		p.lines = append(p.lines, ops, p99)
		f.legend = append(f.legend, ops)
	}
	xLabel := "point"
	if len(sw.Spec.Axes) > 0 {
		xLabel = sw.Spec.Axes[0].Path
	}
	f.x = axis{lo: lo, hi: hi, label: xLabel}
	for i, t := range ticks {
		v := float64(i)
		if numeric {
			v, _ = strconv.ParseFloat(t, 64)
		}
		f.x.ticks = append(f.x.ticks, tick{v, t})
	}
	// A margin on both sides keeps the first and last points off the axes.
	pad := (hi - lo) * 0.05
	if pad == 0 {
		pad = 0.5
	}
	f.x.lo, f.x.hi = lo-pad, hi+pad
	p.y = roundAxis(opsMax*1.1, "ops/s")
	p.y2 = roundAxis(p99Max*1.1, "p99 (ms)")
	if m, ok := bestMarker(sw, ticks, numeric); ok {
		p.markers = append(p.markers, m)
	}
	f.panels = []panel{p}
	return f, true
}

// bestMarker rings the sweep's best point on its throughput line.
func bestMarker(sw *cbv1.BenchmarkSweep, ticks []string, numeric bool) (marker, bool) {
	b := sw.Status.Best
	if b == nil {
		return marker{}, false
	}
	for _, pt := range sw.Status.Table {
		if pt.Point != b.Point || pt.Succeeded == 0 || len(pt.Values) == 0 {
			continue
		}
		x := -1.0
		for i, t := range ticks {
			if t == pt.Values[0] {
				x = float64(i)
			}
		}
		if numeric {
			x, _ = strconv.ParseFloat(pt.Values[0], 64)
		}
		return marker{x: x, y: float64(pt.OpsPerSecond),
			label: fmt.Sprintf("best by %s: point %d, %s ops/s", b.By, b.Point, short(float64(pt.OpsPerSecond))),
			attrs: fmt.Sprintf(`data-point="%d" data-ops="%d"`, pt.Point, pt.OpsPerSecond)}, true
	}
	return marker{}, false
}
