package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/compare"
	"github.com/cassbench/cassbench/internal/results"
)

//go:embed assets/charts.js
var chartsJS string

// Chart is one line chart of the page; the browser draws it from this data.
type Chart struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	XLabel string `json:"xLabel"`
	YLabel string `json:"yLabel"`
	// LogX plots x on a log scale, labelled by XTicks ([value, label] pairs).
	LogX   bool     `json:"logX,omitempty"`
	XTicks [][2]any `json:"xTicks,omitempty"`
	Series []Series `json:"series"`
}

// Series is one line of a chart.
type Series struct {
	Name   string       `json:"name"`
	Points [][2]float64 `json:"points"`
}

type htmlSection struct {
	Title, Text, Spec string
	Charts            []string
}

type htmlPage struct {
	Title       string
	Generated   string
	Sections    []htmlSection
	Charts      []string
	Comparisons []compare.Comparison
	Data        template.JS
	Script      template.JS
}

// HTML writes a one-page report of the runs and sweeps, in that order: for each its spec and
// results, then charts that put the runs side by side (throughput and p99 over time, the
// latency distribution), each sweep's curve, and, with two runs or more, every run compared
// with the first. The page is one self-contained file: styles, data and the script that
// draws the charts are inside it, so it opens with no network.
func HTML(w io.Writer, title string, runs []*cbv1.BenchmarkRun, sweeps []*cbv1.BenchmarkSweep, now time.Time) error {
	page := htmlPage{Title: title, Generated: now.UTC().Format(time.RFC3339)}
	var charts []Chart
	for _, run := range runs {
		var text bytes.Buffer
		if err := runTable(&text, run); err != nil {
			return err
		}
		spec, err := yaml.Marshal(run.Spec)
		if err != nil {
			return fmt.Errorf("rendering the spec of %s: %w", run.Name, err)
		}
		page.Sections = append(page.Sections, htmlSection{Title: "BenchmarkRun " + run.Name, Text: text.String(), Spec: string(spec)})
	}
	for i, sw := range sweeps {
		var text bytes.Buffer
		if err := sweepTable(&text, sw); err != nil {
			return err
		}
		spec, err := yaml.Marshal(sw.Spec)
		if err != nil {
			return fmt.Errorf("rendering the spec of %s: %w", sw.Name, err)
		}
		sc := sweepCharts(sw, i)
		s := htmlSection{Title: "BenchmarkSweep " + sw.Name, Text: text.String(), Spec: string(spec)}
		for _, c := range sc {
			s.Charts = append(s.Charts, c.ID)
		}
		charts = append(charts, sc...)
		page.Sections = append(page.Sections, s)
	}
	for _, c := range runCharts(runs) {
		charts = append(charts, c)
		page.Charts = append(page.Charts, c.ID)
	}
	if len(runs) > 1 {
		base := compare.Side{Name: runs[0].Name, Runs: runs[:1]}
		for _, r := range runs[1:] {
			page.Comparisons = append(page.Comparisons, compare.Compare(base, compare.Side{Name: r.Name, Runs: []*cbv1.BenchmarkRun{r}}, 0.05))
		}
	}
	data, err := json.Marshal(map[string]any{"charts": charts})
	if err != nil {
		return fmt.Errorf("encoding chart data: %w", err)
	}
	// Inside a <script> element the data must not close it early.
	page.Data = template.JS(bytes.ReplaceAll(data, []byte("</"), []byte(`<\/`)))
	page.Script = template.JS(chartsJS)
	return pageTemplate.Execute(w, page)
}

// runCharts put the runs side by side: throughput and p99 over each run's window, and the
// latency distribution from its merged sketch.
func runCharts(runs []*cbv1.BenchmarkRun) []Chart {
	ops := Chart{ID: "throughput", Title: "Throughput over the measured window", XLabel: "seconds", YLabel: "ops/s"}
	p99 := Chart{ID: "p99", Title: "p99 response latency over the window (highest writer's per interval)", XLabel: "seconds", YLabel: "ms"}
	dist := Chart{ID: "distribution", Title: "Response latency by percentile", XLabel: "percentile", YLabel: "ms", LogX: true}
	for _, q := range []struct {
		q     float64
		label string
	}{{0.5, "50%"}, {0.9, "90%"}, {0.99, "99%"}, {0.999, "99.9%"}, {0.9999, "99.99%"}} {
		dist.XTicks = append(dist.XTicks, [2]any{1 / (1 - q.q), q.label})
	}
	for _, run := range runs {
		r := run.Status.Results
		if r == nil {
			continue
		}
		if tl := r.Timeline; tl != nil && len(tl.Points) > 0 {
			var a, b Series
			a.Name, b.Name = run.Name, run.Name
			for _, p := range tl.Points {
				x := (float64(p.OffsetMillis) + float64(tl.IntervalMillis)/2) / 1000
				a.Points = append(a.Points, [2]float64{x, float64(p.OpsPerSecond)})
				b.Points = append(b.Points, [2]float64{x, ms(p.P99Micros)})
			}
			ops.Series, p99.Series = append(ops.Series, a), append(p99.Series, b)
		}
		if sk, err := results.ResponseSketch(r); err == nil && sk != nil && sk.Count() > 0 {
			s := Series{Name: run.Name}
			for _, q := range []float64{0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999} {
				s.Points = append(s.Points, [2]float64{1 / (1 - q), sk.Quantile(q) / 1000})
			}
			dist.Series = append(dist.Series, s)
		}
	}
	var out []Chart
	for _, c := range []Chart{ops, p99, dist} {
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// sweepCharts draw a sweep's throughput and p99 against its first axis, a line per
// combination of the other axes (as the PNG plot does); categorical values are placed by
// their order.
func sweepCharts(sw *cbv1.BenchmarkSweep, n int) []Chart {
	x := "point"
	if len(sw.Spec.Axes) > 0 {
		x = sw.Spec.Axes[0].Path
	}
	ops := Chart{ID: "sweep" + strconv.Itoa(n) + "-ops", Title: sw.Name + ": throughput", XLabel: x, YLabel: "ops/s"}
	p99 := Chart{ID: "sweep" + strconv.Itoa(n) + "-p99", Title: sw.Name + ": p99 response latency", XLabel: x, YLabel: "ms"}
	_, _, all := sweepSeries(sw)
	for _, s := range all {
		name := s.label
		if name == "" {
			name = sw.Name
		}
		a, b := Series{Name: name}, Series{Name: name}
		for i := range s.x {
			a.Points = append(a.Points, [2]float64{s.x[i], s.ops[i]})
			b.Points = append(b.Points, [2]float64{s.x[i], s.p99[i]})
		}
		ops.Series, p99.Series = append(ops.Series, a), append(p99.Series, b)
	}
	return []Chart{ops, p99}
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
pre { background: #f6f6f6; padding: .8em; overflow-x: auto; font-size: 12px; line-height: 1.35; }
table { border-collapse: collapse; font-size: 13px; } td, th { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.better { color: #2ca02c; font-weight: 600; } .worse { color: #d62728; font-weight: 600; }
svg.chart { display: block; margin: 1em 0; }
svg .grid { stroke: #e4e4e4; } svg .axis { stroke: #444; } svg text { font-size: 11px; fill: #333; }
svg .title { font-size: 13px; font-weight: 600; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Generated {{.Generated}} by cassbench report.</p>
{{range .Sections}}
<h2>{{.Title}}</h2>
<pre>{{.Text}}</pre>
{{range .Charts}}<div id="chart-{{.}}"></div>{{end}}
<details><summary>Spec</summary><pre>{{.Spec}}</pre></details>
{{end}}
{{if .Charts}}<h2>Runs side by side</h2>
{{range .Charts}}<div id="chart-{{.}}"></div>{{end}}{{end}}
{{if .Comparisons}}<h2>Compared with {{(index .Comparisons 0).Baseline}}</h2>
{{range .Comparisons}}
<h3>{{.Name}}</h3>
<table>
<tr><th></th><th>{{.Baseline}}</th><th>{{.Name}}</th><th>diff</th><th>verdict</th><th>how</th></tr>
{{range .Rows}}<tr><td>{{.Metric}}</td><td>{{printf "%.0f" .Baseline}}</td><td>{{printf "%.0f" .Value}}</td><td>{{printf "%+.1f%%" .DiffPercent}}</td><td class="{{.Verdict}}">{{.Verdict}}</td><td>{{.Method}}</td></tr>
{{end}}</table>
{{end}}{{end}}
<script type="application/json" id="cassbench-data">{{.Data}}</script>
<script>{{.Script}}</script>
</body>
</html>
`))
