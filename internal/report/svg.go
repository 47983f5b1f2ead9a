package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// The page's charts are SVG written here, not drawn by a script: they print, they need no
// JavaScript, and what they show is tested in Go as well as in the browser.

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

// roundAxis is an axis from zero to a round value above hi, with about n round ticks (1, 2
// or 5 times a power of ten apart): throughput and latency are read against zero.
func roundAxis(hi float64, n int, label string) axis {
	if hi <= 0 {
		hi = 1
	}
	step := niceStep(hi, n)
	return axis{hi: math.Ceil(hi/step-1e-9) * step, label: label, ticks: roundTicksIn(0, math.Ceil(hi/step-1e-9)*step, step)}
}

// spanAxis is an axis from zero to exactly hi, with about n round ticks inside it: a time
// axis ends where the window does, not at the next round value beyond it.
func spanAxis(hi float64, n int, label string) axis {
	if hi <= 0 {
		hi = 1
	}
	return axis{hi: hi, label: label, ticks: roundTicksIn(0, hi, niceStep(hi, n))}
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
		// Twelve digits drop the float noise of the product (3 × 0.1 is 0.30000000000000004).
		v, _ := strconv.ParseFloat(strconv.FormatFloat(k*step, 'g', 12, 64), 64)
		out = append(out, tick{v, short(v)})
	}
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

// fillAttrs are a bar's (or its legend swatch's) fill and stroke.
func (b *bars) fillAttrs(color string) string {
	switch b.fill {
	case barLight:
		return fmt.Sprintf(`fill="%s" fill-opacity="0.4" stroke="%s" stroke-width="1"`, color, color)
	case barOutline:
		return fmt.Sprintf(`fill="#fff" stroke="%s" stroke-width="1.5"`, color)
	}
	return fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="1"`, color, color)
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
	name    string
}

type figure struct {
	id, title string
	x         axis
	panels    []panel
	legend    []line
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

// svg renders the figure; every panel shares the X axis drawn under the last one.
func (f figure) svg() template.HTML {
	var b strings.Builder
	itemW := legendItemW
	for _, l := range f.legend {
		itemW = max(itemW, min(figW-padL-padR, 7.5*float64(len([]rune(l.name)))+34))
	}
	perRow := max(int((figW-padL-padR)/itemW), 1)
	legendRows := (len(f.legend) + perRow - 1) / perRow
	top := titleH + float64(legendRows)*legendRowH + 8
	h := top + float64(len(f.panels))*(panelH+panelGap) - panelGap + xAxisH
	fmt.Fprintf(&b, `<svg class="chart" data-chart="%s" viewBox="0 0 %g %g" role="img" aria-label="%s" preserveAspectRatio="xMidYMin meet">`,
		esc(f.id), figW, h, esc(f.title))
	fmt.Fprintf(&b, `<text class="title" x="%g" y="17">%s</text>`, padL, esc(f.title))
	for i, l := range f.legend {
		x, y := padL+float64(i%perRow)*itemW, titleH+float64(i/perRow)*legendRowH+6
		if l.bars != nil {
			fmt.Fprintf(&b, `<rect x="%g" y="%g" width="18" height="10" %s/>`, x, y-5, l.bars.fillAttrs(l.color))
		} else {
			fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s" stroke-width="3"%s/>`, x, x+18, y, y, l.color, l.style())
		}
		fmt.Fprintf(&b, `<text class="legend" x="%g" y="%g">%s</text>`, x+24, y+4, esc(clip(l.name, 120)))
	}
	x0, x1 := padL, figW-padR
	for i, p := range f.panels {
		py0 := top + float64(i)*(panelH+panelGap)
		py1 := py0 + panelH
		fmt.Fprintf(&b, `<g class="panel" data-panel="%s">`, esc(p.name))
		for _, t := range p.y.ticks {
			y := p.y.scale(t.v, py1, py0)
			fmt.Fprintf(&b, `<line class="grid" x1="%g" x2="%g" y1="%.1f" y2="%.1f"/><text class="tick" x="%g" y="%.1f" text-anchor="end">%s</text>`,
				x0, x1, y, y, x0-6, y+4, esc(t.label))
		}
		if p.hasY2 {
			for _, t := range p.y2.ticks {
				y := p.y2.scale(t.v, py1, py0)
				fmt.Fprintf(&b, `<text class="tick" x="%g" y="%.1f">%s</text>`, x1+6, y+4, esc(t.label))
			}
			fmt.Fprintf(&b, `<text class="label" transform="translate(%g %g) rotate(90)" text-anchor="middle">%s</text>`, figW-14, (py0+py1)/2, esc(p.y2.label))
		}
		fmt.Fprintf(&b, `<text class="label" transform="translate(16 %g) rotate(-90)" text-anchor="middle">%s</text>`, (py0+py1)/2, esc(p.y.label))
		for _, t := range f.x.ticks {
			x := f.x.scale(t.v, x0, x1)
			fmt.Fprintf(&b, `<line class="xgrid" x1="%.1f" x2="%.1f" y1="%g" y2="%g"/>`, x, x, py0, py1)
		}
		fmt.Fprintf(&b, `<line class="axis" x1="%g" x2="%g" y1="%g" y2="%g"/><line class="axis" x1="%g" x2="%g" y1="%g" y2="%g"/>`,
			x0, x1, py1, py1, x0, x0, py0, py1)
		for _, l := range p.lines {
			y := p.y
			if l.right {
				y = p.y2
			}
			b.WriteString(l.svg(f.x, y, x0, x1, py0, py1))
		}
		for _, m := range p.markers {
			x, y := f.x.scale(m.x, x0, x1), p.y.scale(m.y, py1, py0)
			anchor, dx := "start", 12.0
			if x > (x0+x1)/2 {
				anchor, dx = "end", -12
			}
			fmt.Fprintf(&b, `<g class="best" %s><circle cx="%.1f" cy="%.1f" r="9"/><text x="%.1f" y="%.1f" text-anchor="%s">%s</text></g>`,
				m.attrs, x, y, x+dx, y-12, anchor, esc(m.label))
		}
		b.WriteString(`</g>`)
	}
	yAxis := top + float64(len(f.panels))*(panelH+panelGap) - panelGap
	for _, t := range f.x.ticks {
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%g" text-anchor="middle">%s</text>`, f.x.scale(t.v, x0, x1), yAxis+16, esc(t.label))
	}
	fmt.Fprintf(&b, `<text class="label" x="%g" y="%g" text-anchor="middle">%s</text></svg>`, (x0+x1)/2, yAxis+38, esc(f.x.label))
	return template.HTML(b.String()) // #nosec G203 -- every text above went through esc
}

// svg draws the line, its whiskers and a dot per point with the exact figure as a tooltip.
func (l line) svg(x, y axis, x0, x1, py0, py1 float64) string {
	if l.bars != nil {
		return l.barsSVG(x, y, x0, x1, py0, py1)
	}
	var b strings.Builder
	pts := make([]string, len(l.points))
	for i, p := range l.points {
		pts[i] = fmt.Sprintf("%.1f,%.1f", x.scale(p[0], x0, x1), y.scale(p[1], py1, py0))
	}
	fmt.Fprintf(&b, `<g class="line"><polyline class="series" data-series="%s" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`,
		esc(l.name), l.color, l.style(), strings.Join(pts, " "))
	for i, w := range l.whiskers {
		if w[0] == w[1] {
			continue
		}
		px := x.scale(l.points[i][0], x0, x1)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.2"/>`,
			px, px, y.scale(w[0], py1, py0), y.scale(w[1], py1, py0), l.color)
	}
	if len(l.points) <= 30 {
		for _, p := range l.points {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s</title></circle>`,
				x.scale(p[0], x0, x1), y.scale(p[1], py1, py0), l.color, esc(l.name), short(p[1]))
		}
	}
	b.WriteString(`</g>`)
	return b.String()
}

// barsSVG draws a bar per point from zero, in its slot of the point's interval, with the
// exact figure as a tooltip.
func (l line) barsSVG(x, y axis, x0, x1, py0, py1 float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<g class="series" data-kind="bars" data-series="%s">`, esc(l.name))
	group := l.bars.width * 0.8
	slot := group / float64(max(l.bars.slots, 1))
	base := y.scale(0, py1, py0)
	for _, p := range l.points {
		left := x.scale(p[0]-group/2+float64(l.bars.slot)*slot, x0, x1)
		right := x.scale(p[0]-group/2+float64(l.bars.slot+1)*slot, x0, x1)
		top := y.scale(p[1], py1, py0)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s><title>%s: %s</title></rect>`,
			left, top, max(right-left-0.5, 0.5), max(base-top, 0), l.bars.fillAttrs(l.color), esc(l.name), short(p[1]))
	}
	b.WriteString(`</g>`)
	return b.String()
}

func dashAttr(dash bool) string {
	if dash {
		return ` stroke-dasharray="6 4"`
	}
	return ""
}

// style is the stroke pattern of a line: solid, dashed or dotted.
func (l line) style() string {
	if l.dot {
		return ` stroke-dasharray="2 3"`
	}
	return dashAttr(l.dash)
}

func esc(s string) string { return html.EscapeString(s) }

// clip shortens a legend entry that would run into the next one.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
