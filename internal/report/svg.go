package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
)

// Every chart, on the page and in the --plot files, is a figure: panels of lines and bars
// over one X axis, its ticks computed here once. figure.draw lays it out on a painter: the
// page's SVG (paint.go), which the .svg files are too, or an image (image.go). The page's
// charts are SVG, not drawn by a script: they print, they need no JavaScript, and what they
// show is tested in Go as well as in the browser.

// palette gives the same run the same colour in every chart of the page.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

func color(i int) string { return palette[i%len(palette)] }

// axis maps data values onto a span of the drawing.
type axis struct {
	lo, hi float64
	label  string
	ticks  []tick
}

type tick struct {
	v     float64
	label string
}

// scale places v between from (at lo) and to (at hi).
func (a axis) scale(v, from, to float64) float64 {
	if a.hi == a.lo {
		return from
	}
	return from + (to-from)*(v-a.lo)/(a.hi-a.lo)
}

// roundAxis is an axis from zero to a round value above hi, with about four round ticks (1,
// 2 or 5 times a power of ten apart): throughput and latency are read against zero.
func roundAxis(hi float64, label string) axis {
	if hi <= 0 {
		hi = 1
	}
	step := niceStep(hi, 4)
	return axis{hi: math.Ceil(hi/step-1e-9) * step, label: label, ticks: roundTicksIn(0, math.Ceil(hi/step-1e-9)*step, step)}
}

// spanAxis is an axis from zero to exactly hi, with about eight round ticks inside it: a
// time axis ends where the window does, not at the next round value beyond it.
func spanAxis(hi float64, label string) axis {
	if hi <= 0 {
		hi = 1
	}
	return axis{hi: hi, label: label, ticks: roundTicksIn(0, hi, niceStep(hi, 8))}
}

// rangeAxis is an axis from a round value at or below lo to one at or above hi, with about
// n round ticks: a figure that moves little over many runs is read against its own range.
func rangeAxis(lo, hi float64, n int, label string) axis {
	if hi <= lo {
		hi = lo + 1
	}
	step := niceStep(hi-lo, n)
	a := axis{lo: clean(math.Floor(lo/step+1e-9) * step), hi: clean(math.Ceil(hi/step-1e-9) * step), label: label}
	a.ticks = roundTicksIn(a.lo, a.hi, step)
	return a
}

// niceStep is the round step (1, 2 or 5 times a power of ten) that cuts span into about n
// parts: the one tick algorithm of every chart, on the page and in files.
func niceStep(span float64, n int) float64 {
	raw := span / float64(max(n, 1))
	scale := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*scale >= raw*(1-1e-9) {
			return m * scale
		}
	}
	return 10 * scale
}

// roundTicksIn are the multiples of step from lo to hi, labelled short.
func roundTicksIn(lo, hi, step float64) []tick {
	var out []tick
	k := math.Ceil(lo/step - 1e-9)
	if k == 0 {
		k = 0 // not -0, which labels as "-0"
	}
	for ; k*step <= hi+step*1e-6; k++ {
		v := clean(k * step)
		out = append(out, tick{v, short(v)})
	}
	return out
}

// clean drops the float noise of a product of a step (3 × 0.1 is 0.30000000000000004):
// twelve digits are more than any axis shows.
func clean(v float64) float64 {
	out, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return out
}

// short labels a tick: 12000 as 12k, 2.5 as 2.5.
func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// line is one series of a panel. Right puts it on the panel's second Y axis; Dash draws it
// dashed, which is how a second-axis line tells itself apart in print.
type line struct {
	name   string
	color  string
	right  bool
	dash   bool
	dot    bool // dotted, for a third series of one colour
	points [][2]float64
	// whiskers are (low, high) per point: the spread of repeats.
	whiskers [][2]float64
	// bars draws the points as bars instead of a line: counts per interval are totals of
	// the interval, not values between which a line may be read.
	bars *bars
}

// bars places a series' bars: each point's interval is width wide (in X units) around the
// point, shared by slots series side by side, this one in slot; fill is how it is told apart
// from the others of one colour in print (barSolid, barLight, barOutline).
type bars struct {
	width       float64
	slot, slots int
	fill        string
}

const (
	barSolid   = "solid"
	barLight   = "light"
	barOutline = "outline"
)

// paint is a bar's (or its legend swatch's) fill and stroke.
func (b *bars) paint(color string) paint {
	switch b.fill {
	case barLight:
		return paint{fill: color, fillOpacity: 0.4, stroke: color, strokeWidth: 1}
	case barOutline:
		return paint{fill: "#fff", stroke: color, strokeWidth: 1.5}
	}
	return paint{fill: color, stroke: color, strokeWidth: 1}
}

// marker rings one point and says why in a label.
type marker struct {
	x, y  float64
	label string
	attrs string
}

type panel struct {
	y, y2   axis
	hasY2   bool
	lines   []line
	markers []marker
	// rules are X values marked by a dashed vertical line: where a figure changed.
	rules []float64
	// bands shade a stretch of X behind the lines: a fault made inside the window.
	bands []band
	name  string
}

// band is a stretch of X, from..to, shaded and labelled at its top; a band narrower than
// bandMinW is drawn that wide, so that an instant fault (a flush) stays visible.
type band struct {
	from, to    float64
	label, note string
}

const (
	bandMinW  = 4.0
	bandColor = "#c8102e"
)

type figure struct {
	id, title string
	x         axis
	panels    []panel
	legend    []line
	// tall is each panel's height when it is not panelH: an image file stands alone, and
	// gets taller panels than the page (fileHeight).
	tall float64
}

func (f figure) panelHeight() float64 {
	if f.tall > 0 {
		return f.tall
	}
	return panelH
}

// Drawing constants in viewBox units; the SVG scales to its container's width.
const (
	figW        = 1000.0
	padL, padR  = 70.0, 70.0
	titleH      = 26.0
	legendRowH  = 18.0
	panelH      = 170.0
	panelGap    = 34.0
	xAxisH      = 44.0
	legendItemW = 160.0
)

// layout is the legend's item width and items per row, the top of the first panel and the
// figure's height, in viewBox units: the title and the rows of legend come first.
func (f figure) layout() (itemW float64, perRow int, top, h float64) {
	itemW = legendItemW
	for _, l := range f.legend {
		itemW = max(itemW, min(figW-padL-padR, 7.5*float64(len([]rune(l.name)))+34))
	}
	perRow = max(int((figW-padL-padR)/itemW), 1)
	legendRows := (len(f.legend) + perRow - 1) / perRow
	top = titleH + float64(legendRows)*legendRowH + 8
	h = top + float64(len(f.panels))*(f.panelHeight()+panelGap) - panelGap + xAxisH
	return itemW, perRow, top, h
}

// draw lays the figure out on p, figW wide and as high as layout says, every panel sharing
// the X axis drawn under the last one: the one renderer of the page's charts and of the
// --plot files.
func (f figure) draw(p painter) {
	itemW, perRow, top, _ := f.layout()
	p.text("title", padL, 17, f.title, "start", 0)
	for i, l := range f.legend {
		x, y := padL+float64(i%perRow)*itemW, titleH+float64(i/perRow)*legendRowH+6
		if l.bars != nil {
			p.rect(x, y-5, 18, 10, l.bars.paint(l.color), "")
		} else {
			p.line("", x, y, x+18, y, stroke{color: l.color, width: 3, dash: l.dashes()})
		}
		p.text("legend", x+24, y+4, clip(l.name, 120), "start", 0)
	}
	x0, x1 := padL, figW-padR
	for i, pn := range f.panels {
		py0 := top + float64(i)*(f.panelHeight()+panelGap)
		pn.draw(p, f.x, x0, x1, py0, py0+f.panelHeight())
	}
	yAxis := top + float64(len(f.panels))*(f.panelHeight()+panelGap) - panelGap
	for _, t := range f.x.ticks {
		p.text("tick", f.x.scale(t.v, x0, x1), yAxis+16, t.label, "middle", 0)
	}
	p.text("label", (x0+x1)/2, yAxis+38, f.x.label, "middle", 0)
}

// draw draws a panel between py0 (top) and py1 (bottom) and from x0 to x1.
func (pn panel) draw(p painter, x axis, x0, x1, py0, py1 float64) {
	p.group("panel", fmt.Sprintf(`data-panel="%s"`, esc(pn.name)))
	for _, t := range pn.y.ticks {
		y := pn.y.scale(t.v, py1, py0)
		p.line("grid", x0, y, x1, y, stroke{})
		p.text("tick", x0-6, y+4, t.label, "end", 0)
	}
	if pn.hasY2 {
		for _, t := range pn.y2.ticks {
			p.text("tick", x1+6, pn.y2.scale(t.v, py1, py0)+4, t.label, "start", 0)
		}
		p.text("label", figW-14, (py0+py1)/2, pn.y2.label, "middle", 90)
	}
	p.text("label", 16, (py0+py1)/2, pn.y.label, "middle", -90)
	for _, t := range x.ticks {
		xt := x.scale(t.v, x0, x1)
		p.line("xgrid", xt, py0, xt, py1, stroke{})
	}
	for _, b := range pn.bands {
		bx0, bx1 := x.scale(b.from, x0, x1), x.scale(b.to, x0, x1)
		p.rect(bx0, py0, max(bx1-bx0, bandMinW), py1-py0, paint{fill: bandColor, fillOpacity: 0.12}, b.label+": "+b.note)
		// The label reads from the band's left edge into the panel, or back from its right
		// edge when the band is in the panel's right half.
		tx, anchor := bx0+3, "start"
		if bx0 > (x0+x1)/2 {
			tx, anchor = max(bx1, bx0+bandMinW)-3, "end"
		}
		p.text("band", tx, py0+13, clip(b.label, 44), anchor, 0)
		p.text("band", tx, py0+27, clip(b.note, 44), anchor, 0)
	}
	p.line("axis", x0, py1, x1, py1, stroke{})
	p.line("axis", x0, py0, x0, py1, stroke{})
	for _, r := range pn.rules {
		xr := x.scale(r, x0, x1)
		p.line("", xr, py0, xr, py1, stroke{color: "#505050", width: 1.2, dash: "4 3"})
	}
	for _, l := range pn.lines {
		y := pn.y
		if l.right {
			y = pn.y2
		}
		l.draw(p, x, y, x0, x1, py0, py1)
	}
	for _, m := range pn.markers {
		mx, my := x.scale(m.x, x0, x1), pn.y.scale(m.y, py1, py0)
		anchor, dx := "start", 12.0
		if mx > (x0+x1)/2 {
			anchor, dx = "end", -12
		}
		p.group("best", m.attrs)
		p.circle(mx, my, 9, paint{stroke: bestColor, strokeWidth: 3}, "")
		p.text("bestlabel", mx+dx, my-12, m.label, anchor, 0)
		p.end()
	}
	p.end()
}

// bestColor rings a sweep's best point.
const bestColor = "#e69500"

// draw draws the line, its whiskers and a dot per point with the exact figure as a tooltip.
func (l line) draw(p painter, x, y axis, x0, x1, py0, py1 float64) {
	if l.bars != nil {
		l.drawBars(p, x, y, x0, x1, py0, py1)
		return
	}
	p.group("line", "")
	pts := make([][2]float64, len(l.points))
	for i, pt := range l.points {
		pts[i] = [2]float64{x.scale(pt[0], x0, x1), y.scale(pt[1], py1, py0)}
	}
	p.polyline(l.name, pts, stroke{color: l.color, width: 2, dash: l.dashes()})
	for i, w := range l.whiskers {
		if w[0] == w[1] {
			continue
		}
		px := x.scale(l.points[i][0], x0, x1)
		p.line("", px, y.scale(w[0], py1, py0), px, y.scale(w[1], py1, py0), stroke{color: l.color, width: 1.2})
	}
	if len(l.points) <= 30 {
		for i, pt := range l.points {
			p.circle(pts[i][0], pts[i][1], 3, paint{fill: l.color}, l.name+": "+short(pt[1]))
		}
	}
	p.end()
}

// drawBars draws a bar per point from zero, in its slot of the point's interval, with the
// exact figure as a tooltip.
func (l line) drawBars(p painter, x, y axis, x0, x1, py0, py1 float64) {
	p.group("series", fmt.Sprintf(`data-kind="bars" data-series="%s"`, esc(l.name)))
	group := l.bars.width * 0.8
	slot := group / float64(max(l.bars.slots, 1))
	base := y.scale(0, py1, py0)
	for _, pt := range l.points {
		// A bar of an interval that runs past the axis is drawn over the part inside it (a
		// sliver at the axis's end when its slot lies past it).
		left := min(x1, max(x0, x.scale(pt[0]-group/2+float64(l.bars.slot)*slot, x0, x1)))
		right := min(x1, x.scale(pt[0]-group/2+float64(l.bars.slot+1)*slot, x0, x1))
		top := y.scale(pt[1], py1, py0)
		p.rect(left, top, max(right-left-0.5, 0.5), max(base-top, 0), l.bars.paint(l.color), l.name+": "+short(pt[1]))
	}
	p.end()
}

// dashes is the stroke pattern of a line: solid (""), dashed or dotted.
func (l line) dashes() string {
	switch {
	case l.dot:
		return "2 3"
	case l.dash:
		return "6 4"
	}
	return ""
}

func esc(s string) string { return html.EscapeString(s) }

// clip shortens a legend entry that would run into the next one.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
