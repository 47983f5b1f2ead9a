package report

import (
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"
)

// painter is what a figure is drawn on, in viewBox units (figW wide, y down). Classes name
// the page's styles (grid, xgrid, axis, title, legend, tick, label, best); attrs are the SVG
// attributes that let tests and readers find a panel or a series, which an image ignores.
type painter interface {
	group(class, attrs string)
	end()
	line(class string, x1, y1, x2, y2 float64, s stroke)
	polyline(series string, pts [][2]float64, s stroke)
	rect(x, y, w, h float64, p paint, tip string)
	circle(cx, cy, r float64, p paint, tip string)
	text(class string, x, y float64, s, anchor string, rotate float64)
}

// stroke is a line's colour, width and dash pattern ("6 4"); a line with a class and no
// colour takes the class's style.
type stroke struct {
	color string
	width float64
	dash  string
}

// paint is a shape's fill and outline; no fill colour means none.
type paint struct {
	fill        string
	fillOpacity float64
	stroke      string
	strokeWidth float64
}

// svgPainter writes the figure as the SVG markup the page embeds.
type svgPainter struct{ b strings.Builder }

func (s *svgPainter) group(class, attrs string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(&s.b, `<g class="%s"%s>`, class, attrs)
}

func (s *svgPainter) end() { s.b.WriteString(`</g>`) }

func (st stroke) attrs() string {
	if st.color == "" {
		return ""
	}
	out := fmt.Sprintf(` stroke="%s" stroke-width="%g"`, st.color, st.width)
	if st.dash != "" {
		out += fmt.Sprintf(` stroke-dasharray="%s"`, st.dash)
	}
	return out
}

func (s *svgPainter) line(class string, x1, y1, x2, y2 float64, st stroke) {
	if class != "" {
		class = fmt.Sprintf(` class="%s"`, class)
	}
	fmt.Fprintf(&s.b, `<line%s x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"%s/>`, class, x1, x2, y1, y2, st.attrs())
}

func (s *svgPainter) polyline(series string, pts [][2]float64, st stroke) {
	xy := make([]string, len(pts))
	for i, p := range pts {
		xy[i] = fmt.Sprintf("%.1f,%.1f", p[0], p[1])
	}
	fmt.Fprintf(&s.b, `<polyline class="series" data-series="%s" fill="none"%s points="%s"/>`, esc(series), st.attrs(), strings.Join(xy, " "))
}

func (p paint) attrs() string {
	fill := `fill="none"`
	if p.fill != "" {
		fill = fmt.Sprintf(`fill="%s"`, p.fill)
	}
	if p.fillOpacity > 0 {
		fill += fmt.Sprintf(` fill-opacity="%g"`, p.fillOpacity)
	}
	if p.stroke != "" {
		fill += fmt.Sprintf(` stroke="%s" stroke-width="%g"`, p.stroke, p.strokeWidth)
	}
	return fill
}

// tooltip is an SVG title: the exact figure where the pointer rests.
func tooltip(tip string) string {
	if tip == "" {
		return ""
	}
	return "<title>" + esc(tip) + "</title>"
}

func (s *svgPainter) rect(x, y, w, h float64, p paint, tip string) {
	fmt.Fprintf(&s.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s>%s</rect>`, x, y, w, h, p.attrs(), tooltip(tip))
}

func (s *svgPainter) circle(cx, cy, r float64, p paint, tip string) {
	fmt.Fprintf(&s.b, `<circle cx="%.1f" cy="%.1f" r="%g" %s>%s</circle>`, cx, cy, r, p.attrs(), tooltip(tip))
}

func (s *svgPainter) text(class string, x, y float64, txt, anchor string, rotate float64) {
	pos := fmt.Sprintf(`x="%.1f" y="%.1f"`, x, y)
	if rotate != 0 {
		pos = fmt.Sprintf(`transform="translate(%.1f %.1f) rotate(%g)"`, x, y, rotate)
	}
	fmt.Fprintf(&s.b, `<text class="%s" %s text-anchor="%s">%s</text>`, class, pos, anchor, esc(txt))
}

// svg renders the figure for the page.
func (f figure) svg() template.HTML {
	return template.HTML(f.svgMarkup("")) // #nosec G203 -- every text in it went through esc
}

// svgMarkup is the figure's svg element; extra goes into its opening tag.
func (f figure) svgMarkup(extra string) string {
	_, _, _, h := f.layout()
	p := &svgPainter{}
	fmt.Fprintf(&p.b, `<svg class="chart" data-chart="%s" viewBox="0 0 %g %g" role="img" aria-label="%s" preserveAspectRatio="xMidYMin meet"%s>`,
		esc(f.id), figW, h, esc(f.title), extra)
	if extra != "" {
		// A file stands alone: the page's styles for charts come with it.
		p.b.WriteString("<style>" + chartCSS() + "</style>")
	}
	f.draw(p)
	p.b.WriteString(`</svg>`)
	return p.b.String()
}

// chartRule is a rule of the page's stylesheet for what is inside its charts (the chart's
// own size on the page is the page's business).
var chartRule = regexp.MustCompile(`svg [^{]*\{[^}]*\}`)

// chartCSS are the page's rules for its charts, for an SVG file of its own.
func chartCSS() string {
	return strings.Join(chartRule.FindAllString(pageCSS, -1), " ")
}

// writeSVG writes the figure as an SVG file, widthPt points wide.
func (f figure) writeSVG(w io.Writer, widthPt float64) error {
	_, _, _, h := f.layout()
	extra := fmt.Sprintf(` xmlns="http://www.w3.org/2000/svg" width="%gpt" height="%gpt"`, widthPt, widthPt*h/figW)
	_, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+f.svgMarkup(extra)+"\n")
	return err
}
