package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

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

// PlotSweep draws the sweep's chart of the page: throughput (left) and p99 (right) against
// its first axis, a pair of lines per combination of the other axes, whiskers spanning the
// repeats' minimum to maximum, and the best point ringed.
func PlotSweep(w io.Writer, sw *cbv1.BenchmarkSweep, format ImageFormat) error {
	f, ok := sweepFigure(sw, 0)
	if !ok {
		return fmt.Errorf("BenchmarkSweep %s has no succeeded point to plot yet (%s)", sw.Name, orDash(sw.Status.Progress))
	}
	return f.write(w, format)
}

// PlotRun draws a run's chart of the page: its throughput above its p99 over the measured
// window (and the servers under them, when it has their timeline); a run without a
// timeline gets a bar per writer with its throughput.
func PlotRun(w io.Writer, run *cbv1.BenchmarkRun, format ImageFormat) error {
	if f, ok := timelineFigure([]*cbv1.BenchmarkRun{run}); ok {
		f.title = run.Name + ": " + f.title
		return f.write(w, format)
	}
	f, ok := writersFigure(run)
	if !ok {
		return fmt.Errorf("BenchmarkRun %s has no per-writer results to plot yet (%s)", run.Name, orDash(string(run.Status.Phase)))
	}
	return f.write(w, format)
}

// writersFigure is a bar per writer with its throughput.
func writersFigure(run *cbv1.BenchmarkRun) (figure, bool) {
	r := run.Status.Results
	if r == nil || len(r.PerWriter) == 0 {
		return figure{}, false
	}
	f := figure{id: "writers", title: fmt.Sprintf("%s: ops/s per writer (%d ops/s in all)", run.Name, r.OpsPerSecond)}
	l := line{name: "ops/s", color: color(0), bars: &bars{width: 1, slots: 1, fill: barSolid}}
	var hi float64
	n := float64(len(r.PerWriter))
	f.x = axis{lo: -0.5, hi: n - 0.5, label: "writer"}
	// A label per writer while they fit, else every few.
	every := int(max(1, niceStep(n, 20)))
	for i, wr := range r.PerWriter {
		l.points = append(l.points, [2]float64{float64(i), float64(wr.OpsPerSecond)})
		hi = max(hi, float64(wr.OpsPerSecond))
		if i%every == 0 {
			f.x.ticks = append(f.x.ticks, tick{float64(i), strconv.Itoa(int(wr.Index))})
		}
	}
	f.panels = []panel{{name: "writers", y: roundAxis(hi*1.05, "ops/s"), lines: []line{l}}}
	return f, true
}

// PlotTimelines draws the page's timeline chart of the runs: their throughput above their
// p99 over their measured windows, one line per run, so that experiments can be compared at
// a glance.
func PlotTimelines(w io.Writer, runs []*cbv1.BenchmarkRun, format ImageFormat) error {
	for _, run := range runs {
		if r := run.Status.Results; r == nil || r.Timeline == nil || len(r.Timeline.Points) == 0 {
			return fmt.Errorf("BenchmarkRun %s has no timeline to plot", run.Name)
		}
	}
	f, _ := timelineFigure(runs)
	return f.write(w, format)
}

// plotWidth is every plot file's width in points: 8 inches, a page's printable width.
const plotWidth = 8 * 72

// fileHeight is the least height of a figure in an image file, in viewBox units: a file
// with one or two panels is not a strip, as the page's charts may be.
const fileHeight = 600.0

// write writes the figure as an image file of the format.
func (f figure) write(w io.Writer, format ImageFormat) error {
	_, _, top, _ := f.layout()
	n := float64(max(len(f.panels), 1))
	f.tall = max(panelH, (fileHeight-top-xAxisH+panelGap)/n-panelGap)
	switch format {
	case PNG:
		return f.writePNG(w, plotWidth)
	case SVG:
		return f.writeSVG(w, plotWidth)
	}
	return errors.New("plot format must be png or svg")
}
