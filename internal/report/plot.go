package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sweep"
)

// ImageFormat is a plot's file format.
type ImageFormat string

const (
	PNG ImageFormat = "png"
	SVG ImageFormat = "svg"
)

// ImageFormatOf tells the format from a file name's extension.
func ImageFormatOf(path string) (ImageFormat, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return PNG, nil
	case ".svg":
		return SVG, nil
	}
	return "", fmt.Errorf("plot file %q: name it .png or .svg", path)
}

// series is one line of a sweep plot: the points that share the values of every axis but the
// first.
type series struct {
	label string
	x     []float64
	// ops and p99 (milliseconds) with the distance down to the repeats' minimum and up to their
	// maximum.
	ops, opsLow, opsHigh []float64
	p99, p99Low, p99High []float64
}

// sweepSeries lays a sweep's succeeded points out for plotting: the first axis on X (its
// values as numbers when all are numbers, else as categories named by ticks), and one series
// per combination of the other axes' values. In zip mode the axes move together, so there is
// one series.
func sweepSeries(sw *cbv1.BenchmarkSweep) (ticks []string, numeric bool, out []*series) {
	numeric = true
	index := map[string]int{}
	for _, p := range sw.Status.Table {
		if len(p.Values) == 0 {
			continue
		}
		if _, ok := index[p.Values[0]]; !ok {
			index[p.Values[0]] = len(ticks)
			ticks = append(ticks, p.Values[0])
			if _, err := strconv.ParseFloat(p.Values[0], 64); err != nil {
				numeric = false
			}
		}
	}
	byLabel := map[string]*series{}
	for _, p := range sw.Status.Table {
		if p.Succeeded == 0 || len(p.Values) == 0 {
			continue
		}
		label := ""
		if len(sw.Spec.Axes) > 1 {
			if sw.Spec.Mode == cbv1.SweepZip {
				label = "with " + strings.Join(axisPaths(sw)[1:], ", ")
			} else {
				label = sweep.Assignments(sw.Spec.Axes[1:], p.Values[1:])
			}
		}
		s := byLabel[label]
		if s == nil {
			s = &series{label: label}
			byLabel[label] = s
			out = append(out, s)
		}
		x := float64(index[p.Values[0]])
		if numeric {
			x, _ = strconv.ParseFloat(p.Values[0], 64)
		}
		s.x = append(s.x, x)
		s.ops = append(s.ops, float64(p.OpsPerSecond))
		s.opsLow = append(s.opsLow, float64(p.OpsPerSecond-p.OpsPerSecondMin))
		s.opsHigh = append(s.opsHigh, float64(p.OpsPerSecondMax-p.OpsPerSecond))
		s.p99 = append(s.p99, ms(p.P99))
		s.p99Low = append(s.p99Low, ms(p.P99-p.P99Min))
		s.p99High = append(s.p99High, ms(p.P99Max-p.P99))
	}
	return ticks, numeric, out
}

func ms(micros int64) float64 { return float64(micros) / 1000 }

// PlotSweep draws throughput above p99 latency, both against the sweep's first axis, one line
// per combination of the other axes, with error bars spanning the repeats' minimum to maximum.
func PlotSweep(w io.Writer, sw *cbv1.BenchmarkSweep, format ImageFormat) error {
	ticks, numeric, all := sweepSeries(sw)
	if len(all) == 0 {
		return fmt.Errorf("BenchmarkSweep %s has no succeeded point to plot yet (%s)", sw.Name, orDash(sw.Status.Progress))
	}
	xLabel := sw.Spec.Axes[0].Path
	top, bottom := plot.New(), plot.New()
	top.Title.Text = fmt.Sprintf("%s: throughput", sw.Name)
	top.Y.Label.Text = "ops/s"
	bottom.Title.Text = "p99 response latency"
	bottom.Y.Label.Text = "p99 (ms)"
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Label.Text = xLabel
		p.Add(plotter.NewGrid())
		// Throughput usually climbs and levels off to the right: the top left is free.
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs, p.Legend.YOffs = 3*vg.Millimeter, -2*vg.Millimeter
	}
	var topMax, bottomMax float64
	for i, s := range all {
		for _, panel := range []struct {
			p            *plot.Plot
			y, low, high []float64
			legend       bool
		}{{top, s.ops, s.opsLow, s.opsHigh, true}, {bottom, s.p99, s.p99Low, s.p99High, false}} {
			xys := make(plotter.XYs, len(s.x))
			errs := make(plotter.YErrors, len(s.x))
			spread := false
			for j := range s.x {
				if panel.p == top {
					topMax = max(topMax, panel.y[j]+panel.high[j])
				} else {
					bottomMax = max(bottomMax, panel.y[j]+panel.high[j])
				}
				xys[j] = plotter.XY{X: s.x[j], Y: panel.y[j]}
				errs[j].Low, errs[j].High = panel.low[j], panel.high[j]
				spread = spread || panel.low[j] != 0 || panel.high[j] != 0
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return fmt.Errorf("plotting %s: %w", s.label, err)
			}
			line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
			line.Width = vg.Points(1.5)
			panel.p.Add(line, points)
			if spread {
				bars, err := plotter.NewYErrorBars(struct {
					plotter.XYs
					plotter.YErrors
				}{xys, errs})
				if err != nil {
					return fmt.Errorf("plotting %s: %w", s.label, err)
				}
				bars.Color = plotutil.Color(i)
				panel.p.Add(bars)
			}
			if panel.legend && s.label != "" {
				top.Legend.Add(s.label, line, points)
			}
		}
	}
	// Head room above the highest error bar keeps the legend clear of the lines.
	legendRoom := 1.1 + 0.07*float64(len(all))
	top.Y.Max, bottom.Y.Max = topMax*legendRoom, bottomMax*1.1
	fitAxes([]*plot.Plot{top, bottom}, ticks, numeric)
	return render(w, format, 7*vg.Inch, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 6 * vg.Millimeter,
			PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
		canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
		top.Draw(canvases[0][0])
		bottom.Draw(canvases[1][0])
	})
}

// fitAxes starts each panel's y axis at zero and marks its x axis with the sweep's values:
// named ticks for a nominal axis, a padded range for a numeric one.
func fitAxes(plots []*plot.Plot, ticks []string, numeric bool) {
	for _, p := range plots {
		p.Y.Min = 0
		p.Y.Tick.Marker = roundTicks{}
		if !numeric {
			p.NominalX(ticks...)
			p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
			continue
		}
		p.X.Tick.Marker = valueTicks(ticks)
		pad := (p.X.Max - p.X.Min) * 0.04
		if pad == 0 {
			pad = 1
		}
		p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	}
}

// valueTicks marks the swept values themselves on a numeric axis.
type valueTicks []string

func (v valueTicks) Ticks(lo, hi float64) []plot.Tick {
	out := make([]plot.Tick, 0, len(v))
	for _, s := range v {
		x, _ := strconv.ParseFloat(s, 64)
		if x >= lo && x <= hi {
			out = append(out, plot.Tick{Value: x, Label: s})
		}
	}
	return out
}

// PlotRun draws a run's throughput above its p99 over the measured window, from its
// timeline; a run without one gets a bar per writer with its throughput.
func PlotRun(w io.Writer, run *cbv1.BenchmarkRun, format ImageFormat) error {
	if r := run.Status.Results; r != nil && r.Timeline != nil && len(r.Timeline.Points) > 0 {
		return plotTimeline(w, run, format)
	}
	r := run.Status.Results
	if r == nil || len(r.PerWriter) == 0 {
		return fmt.Errorf("BenchmarkRun %s has no per-writer results to plot yet (%s)", run.Name, orDash(string(run.Status.Phase)))
	}
	values := make(plotter.Values, len(r.PerWriter))
	names := make([]string, len(r.PerWriter))
	for i, wr := range r.PerWriter {
		values[i] = float64(wr.OpsPerSecond)
		names[i] = strconv.Itoa(int(wr.Index))
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: ops/s per writer (%d ops/s in all)", run.Name, r.OpsPerSecond)
	p.X.Label.Text = "writer"
	p.Y.Label.Text = "ops/s"
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	width := max(min(vg.Points(30), 6*vg.Inch/vg.Length(len(values)+1)), vg.Points(2))
	bars, err := plotter.NewBarChart(values, width)
	if err != nil {
		return fmt.Errorf("plotting writers: %w", err)
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.Y.Min, p.Y.Max = 0, maxValue(values)*1.1
	p.Y.Tick.Marker = roundTicks{}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(values))-0.5
	return render(w, format, 4.5*vg.Inch, func(dc draw.Canvas) {
		m := 3 * vg.Millimeter
		p.Draw(draw.Crop(dc, m, -m, m, -m))
	})
}

// timelineSeries is a timeline's intervals as (seconds from the window's start, figure)
// pairs, at each interval's middle, as the page draws them (stretches), and where the
// timeline ends.
func timelineSeries(tl *cbv1.Timeline, figure func(stretch) float64) (plotter.XYs, float64) {
	spans, end := stretches(tl)
	out := make(plotter.XYs, len(spans))
	for i, s := range spans {
		out[i] = plotter.XY{X: s.middle(), Y: figure(s)}
	}
	return out, end
}

func plotTimeline(w io.Writer, run *cbv1.BenchmarkRun, format ImageFormat) error {
	return PlotTimelines(w, []*cbv1.BenchmarkRun{run}, format)
}

// PlotTimelines draws the runs' throughput above their p99 over their measured windows, one
// line per run, so that experiments can be compared at a glance.
func PlotTimelines(w io.Writer, runs []*cbv1.BenchmarkRun, format ImageFormat) error {
	top, bottom := plot.New(), plot.New()
	top.Title.Text = "throughput"
	if len(runs) == 1 {
		top.Title.Text = fmt.Sprintf("%s: throughput every %s", runs[0].Name, time.Duration(runs[0].Status.Results.Timeline.IntervalMillis)*time.Millisecond)
	}
	top.Y.Label.Text = "ops/s"
	bottom.Title.Text = "p99 response latency (highest writer's, per interval)"
	bottom.Y.Label.Text = "p99 (ms)"
	var topMax, bottomMax, xMax float64
	for i, run := range runs {
		r := run.Status.Results
		if r == nil || r.Timeline == nil || len(r.Timeline.Points) == 0 {
			return fmt.Errorf("BenchmarkRun %s has no timeline to plot", run.Name)
		}
		for _, panel := range []struct {
			p      *plot.Plot
			figure func(stretch) float64
			hi     *float64
		}{
			{top, func(s stretch) float64 { return s.opsPerSecond }, &topMax},
			{bottom, func(s stretch) float64 { return s.p99Millis }, &bottomMax},
		} {
			xys, end := timelineSeries(r.Timeline, panel.figure)
			xMax = max(xMax, end)
			line, err := plotter.NewLine(xys)
			if err != nil {
				return fmt.Errorf("plotting the timeline of %s: %w", run.Name, err)
			}
			line.Color, line.Width = plotutil.Color(i), vg.Points(1.5)
			panel.p.Add(line)
			*panel.hi = max(*panel.hi, maxY(xys))
			if panel.p == top && len(runs) > 1 {
				top.Legend.Add(run.Name, line)
			}
		}
	}
	for _, p := range []*plot.Plot{top, bottom} {
		p.Add(plotter.NewGrid())
		p.X.Label.Text = "seconds into the measured window"
		// The time axis ends with the window, its ticks from the page's tick algorithm.
		p.X.Min, p.X.Max, p.Y.Min = 0, xMax, 0
		p.X.Tick.Marker = roundTicks{}
		p.Y.Tick.Marker = roundTicks{}
		p.Legend.Top = true
	}
	top.Y.Max, bottom.Y.Max = topMax*(1.1+0.07*float64(len(runs))), bottomMax*1.1
	return render(w, format, 7*vg.Inch, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 6 * vg.Millimeter,
			PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
		canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
		top.Draw(canvases[0][0])
		bottom.Draw(canvases[1][0])
	})
}

func maxY(xys plotter.XYs) float64 {
	hi := 1.0
	for _, p := range xys {
		hi = max(hi, p.Y)
	}
	return hi
}

// roundTicks marks about five round values (1, 2 or 5 times a power of ten apart) and labels
// them without trailing zeros: 10000, 2.5.
type roundTicks struct{}

func (roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo {
		return nil
	}
	step := niceStep(hi-lo, 5)
	var out []plot.Tick
	for _, t := range roundTicksIn(lo, hi, step) {
		out = append(out, plot.Tick{Value: t.v, Label: strconv.FormatFloat(t.v, 'f', -1, 64)})
		for i := 1; i < 5; i++ {
			if minor := t.v + float64(i)*step/5; minor <= hi {
				out = append(out, plot.Tick{Value: minor})
			}
		}
	}
	return out
}

func maxValue(vs plotter.Values) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// plotWidth is every plot's width: 8 inches, a page's printable width.
const plotWidth = 8 * vg.Inch

// render draws onto a canvas of the format, plotWidth wide, and writes the image.
func render(w io.Writer, format ImageFormat, height vg.Length, paint func(draw.Canvas)) error {
	width := plotWidth
	var (
		canvas vg.CanvasWriterTo
		dc     draw.Canvas
	)
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))
		canvas, dc = vgimg.PngCanvas{Canvas: c}, draw.New(c)
	case SVG:
		c := vgsvg.New(width, height)
		canvas, dc = c, draw.New(c)
	default:
		return errors.New("plot format must be png or svg")
	}
	paint(dc)
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("writing the %s plot: %w", format, err)
	}
	return nil
}
