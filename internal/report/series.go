package report

import (
	"errors"
	"fmt"
	imagecolor "image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	var plots [][]*plot.Plot
	for i, sp := range panels {
		p, err := seriesPlot(sp, i)
		if err != nil {
			return err
		}
		p.X.Min, p.X.Max = 0.5, float64(runs)+0.5
		if i == 0 {
			p.Title.Text = title
		}
		if i == len(panels)-1 {
			p.X.Label.Text = "run (oldest first); dashed: a change"
		}
		plots = append(plots, []*plot.Plot{p})
	}
	height := vg.Length(len(panels)) * 2.2 * vg.Inch
	return render(w, format, height, func(dc draw.Canvas) {
		m := 3 * vg.Millimeter
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 2 * vg.Millimeter}
		canvases := plot.Align(plots, tiles, draw.Crop(dc, m, -m, m, -m))
		for i := range plots {
			plots[i][0].Draw(canvases[i][0])
		}
	})
}

func seriesPlot(sp SeriesPanel, i int) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = sp.Title
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	var pts plotter.XYs
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, v := range sp.Values {
		if math.IsNaN(v) {
			continue
		}
		pts = append(pts, plotter.XY{X: float64(j + 1), Y: v})
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(pts) == 0 {
		return p, nil
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, fmt.Errorf("plotting %s: %w", sp.Title, err)
	}
	line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
	points.Shape = draw.CircleGlyph{}
	p.Add(line, points)
	pad := math.Max((hi-lo)*0.1, math.Abs(hi)*0.02)
	p.Y.Min, p.Y.Max = math.Max(0, lo-pad), hi+pad
	for _, c := range sp.Changes {
		x := float64(c) + 0.5 // between the last run before and the first after
		mark, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return nil, fmt.Errorf("plotting %s: %w", sp.Title, err)
		}
		mark.Color = imagecolor.Gray{Y: 80}
		mark.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mark)
	}
	return p, nil
}
