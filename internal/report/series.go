package report

import (
	"errors"
	"io"
	"math"
	"strconv"
)

// SeriesPanel is one figure over a series of runs (cassbench history).
type SeriesPanel struct {
	// Title names the figure, with its unit.
	Title string
	// Values has one value per run; NaN where the run did not measure the figure.
	Values []float64
	// Changes are the runs where the figure changed (the first run after each change).
	Changes []int
}

// PlotSeries draws each panel's figure over the runs, one panel above the other on a shared
// axis of run numbers (1 is the oldest), with a dashed line where a figure changed.
func PlotSeries(w io.Writer, title string, runs int, panels []SeriesPanel, format ImageFormat) error {
	if len(panels) == 0 || runs == 0 {
		return errors.New("no figure to plot")
	}
	return seriesFigure(title, runs, panels).write(w, format)
}

// seriesFigure puts each panel's figure over the runs on an axis of run numbers.
func seriesFigure(title string, runs int, panels []SeriesPanel) figure {
	f := figure{id: "history", title: title, x: axis{lo: 0.5, hi: float64(runs) + 0.5, label: "run (oldest first); dashed: a change"}}
	step := max(1, niceStep(float64(runs), 10))
	f.x.ticks = roundTicksIn(1, float64(runs), step)
	for i, sp := range panels {
		l := line{name: sp.Title, color: color(i)}
		lo, hi := math.Inf(1), math.Inf(-1)
		for j, v := range sp.Values {
			if math.IsNaN(v) {
				continue
			}
			l.points = append(l.points, [2]float64{float64(j + 1), v})
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		p := panel{name: "series-" + strconv.Itoa(i), lines: []line{l}}
		if len(l.points) == 0 {
			lo, hi = 0, 1
		}
		pad := math.Max((hi-lo)*0.1, math.Abs(hi)*0.02)
		p.y = rangeAxis(math.Max(0, lo-pad), hi+pad, 4, sp.Title)
		for _, c := range sp.Changes {
			p.rules = append(p.rules, float64(c)+0.5) // between the last run before and the first after
		}
		f.panels = append(f.panels, p)
	}
	return f
}
