package report

import (
	"fmt"
	imagecolor "image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// imagePainter draws a figure on gonum's vector canvas, which vgimg rasterises: the page's
// figure, laid out by the same code, in the page's colours and sizes.
type imagePainter struct {
	c draw.Canvas
	k float64 // points per viewBox unit
	h float64 // the figure's height, in points
}

// The page's chart styles (assets/page.css), for the classes a figure uses.
var (
	classStroke = map[string]stroke{"grid": {"#e6e9ef", 1, ""}, "xgrid": {"#f0f2f5", 1, ""}, "axis": {"#5a6375", 1, ""}}
	classText   = map[string]struct {
		color string
		size  float64
	}{"title": {"#1d2330", 15}, "label": {"#4f596b", 13}, "bestlabel": {"#7a4f00", 13}, "band": {"#8a0b20", 12}}
)

func (p *imagePainter) pt(x, y float64) vg.Point {
	return vg.Point{X: vg.Length(x * p.k), Y: vg.Length(p.h - y*p.k)}
}

func (p *imagePainter) group(string, string) {}
func (p *imagePainter) end()                 {}

func (p *imagePainter) lineStyle(s stroke) draw.LineStyle {
	ls := draw.LineStyle{Color: rgb(s.color), Width: vg.Length(s.width * p.k)}
	for _, d := range strings.Fields(s.dash) {
		v, _ := strconv.ParseFloat(d, 64)
		ls.Dashes = append(ls.Dashes, vg.Length(v*p.k))
	}
	return ls
}

func (p *imagePainter) line(class string, x1, y1, x2, y2 float64, s stroke) {
	if s.color == "" {
		s = classStroke[class]
	}
	p.c.StrokeLine2(p.lineStyle(s), p.pt(x1, y1).X, p.pt(x1, y1).Y, p.pt(x2, y2).X, p.pt(x2, y2).Y)
}

func (p *imagePainter) polyline(_ string, pts [][2]float64, s stroke) {
	if len(pts) < 2 {
		return
	}
	line := make([]vg.Point, len(pts))
	for i, q := range pts {
		line[i] = p.pt(q[0], q[1])
	}
	p.c.StrokeLines(p.lineStyle(s), line)
}

func (p *imagePainter) shape(path vg.Path, f paint) {
	if f.fill != "" {
		c := rgb(f.fill)
		if f.fillOpacity > 0 {
			c.A = uint8(math.Round(255 * f.fillOpacity))
		}
		p.c.SetColor(c)
		p.c.Fill(path)
	}
	if f.stroke != "" {
		p.c.SetLineStyle(p.lineStyle(stroke{color: f.stroke, width: f.strokeWidth}))
		p.c.Stroke(path)
	}
}

func (p *imagePainter) rect(x, y, w, h float64, f paint, _ string) {
	var path vg.Path
	path.Move(p.pt(x, y))
	path.Line(p.pt(x+w, y))
	path.Line(p.pt(x+w, y+h))
	path.Line(p.pt(x, y+h))
	path.Close()
	p.shape(path, f)
}

func (p *imagePainter) circle(cx, cy, r float64, f paint, _ string) {
	var path vg.Path
	c := p.pt(cx, cy)
	path.Move(vg.Point{X: c.X + vg.Length(r*p.k), Y: c.Y})
	path.Arc(c, vg.Length(r*p.k), 0, 2*math.Pi)
	path.Close()
	p.shape(path, f)
}

func (p *imagePainter) text(class string, x, y float64, s, anchor string, rotate float64) {
	st, ok := classText[class]
	if !ok {
		st.color, st.size = "#3a4356", 13
	}
	align := map[string]text.XAlignment{"start": text.XLeft, "middle": text.XCenter, "end": text.XRight}[anchor]
	p.c.FillText(draw.TextStyle{
		Color:    rgb(st.color),
		Font:     font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, vg.Length(st.size*p.k)),
		XAlign:   align,
		Rotation: -rotate * math.Pi / 180, // SVG turns clockwise with y down
		Handler:  plot.DefaultTextHandler,
	}, p.pt(x, y), s)
}

// rgb reads "#rrggbb" or "#rgb"; anything else is black.
func rgb(s string) imagecolor.NRGBA {
	hex := strings.TrimPrefix(s, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || len(hex) != 6 {
		return imagecolor.NRGBA{A: 255}
	}
	return imagecolor.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// writePNG draws the figure widthPt points wide at 96 dots an inch, on white.
func (f figure) writePNG(w io.Writer, widthPt float64) error {
	_, _, _, h := f.layout()
	k := widthPt / figW
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(widthPt), vg.Length(h*k)), vgimg.UseDPI(96), vgimg.UseBackgroundColor(imagecolor.White))
	f.draw(&imagePainter{c: draw.New(c), k: k, h: h * k})
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("writing the png plot: %w", err)
	}
	return nil
}
