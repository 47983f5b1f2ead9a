package report

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/compare"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

func TestRunCards(t *testing.T) {
	run := reporttest.Reviewed("ns", "r")
	r := run.Status.Results
	got := map[string]card{}
	for _, c := range runCards(run) {
		got[c.Metric] = c
	}
	want := map[string][2]string{ // raw, shown
		"opsPerSecond":         {strconv.FormatInt(r.OpsPerSecond, 10), "15,800"},
		"writes.p99":           {strconv.FormatInt(r.Writes.Response.P99, 10), Micros(r.Writes.Response.P99)},
		"writes.p999":          {strconv.FormatInt(r.Writes.Response.P999, 10), Micros(r.Writes.Response.P999)},
		"timeoutsPerAttempt":   {"0.000001", "0.0001%"},
		"timeoutsPerOperation": {"0.000001", "0.0001%"},
		"bottleneck":           {"Cluster", "Cluster"},
	}
	if len(got) != len(want) {
		t.Errorf("cards %v, want %v", got, want)
	}
	for metric, w := range want {
		if c := got[metric]; c.Raw != w[0] || c.Value != w[1] {
			t.Errorf("%s card: raw %q shown %q, want %q and %q", metric, c.Raw, c.Value, w[0], w[1])
		}
	}
	// 15,800 of 16,000 is a target missed; the first evidence stands under the verdict.
	if c := got["opsPerSecond"]; c.Class != "warn" || !strings.Contains(c.Note, "of 16,000 targeted (98.8%)") {
		t.Errorf("ops/s card against the target: %+v", c)
	}
	if c := got["bottleneck"]; c.Note != r.Bottleneck.Evidence[0] {
		t.Errorf("bottleneck card note %q, want the first evidence", c.Note)
	}
	// Without a target, the card says what the figure is made of; timeouts over 0.1% are red.
	r.Schedule, r.TimeoutsPerAttempt = nil, "0.02"
	for _, c := range runCards(run) {
		switch c.Metric {
		case "opsPerSecond":
			if c.Class != "" || !strings.Contains(c.Note, "operations in 600 s") {
				t.Errorf("ops/s card without a target: %+v", c)
			}
		case "timeoutsPerAttempt":
			if c.Class != "bad" || c.Value != "2%" {
				t.Errorf("timeouts card at 2%%: %+v", c)
			}
		}
	}
}

func TestNumberFormats(t *testing.T) {
	for in, want := range map[float64]string{0: "0%", 0.000001: "0.0001%", 0.0123: "1.2%", 0.5: "50%", 0.000011: "0.0011%"} {
		if got := percent(in); got != want {
			t.Errorf("percent(%g) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int64]string{412: "0.41", 3305: "3.31", 20_512: "20.5", 2_048_211: "2,048"} {
		if got := msCell(in); got != want {
			t.Errorf("msCell(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestComparisonOf(t *testing.T) {
	c := compare.Comparison{Baseline: "a", Name: "b", Rows: []compare.Row{
		{Metric: "ops/s", Baseline: 10000, Value: 11500, DiffPercent: 15, Verdict: compare.Better},
		{Metric: "p50", Baseline: 900, Value: 1000, DiffPercent: 11.1, Verdict: compare.Worse},
		{Metric: "p99", Baseline: 3000, Value: 3010, Verdict: compare.NoDifference},
		{Metric: "p999", Verdict: compare.TooLittleData},
	}}
	var got [][3]string
	for _, l := range comparisonOf(c).Lines {
		got = append(got, [3]string{l.Class, l.Metric, l.Baseline + " → " + l.Value})
	}
	want := [][3]string{{"better", "ops/s", "10,000 → 11,500"}, {"worse", "p50", "900us → 1.00ms"},
		{"noise", "p99", "3.00ms → 3.01ms"}, {"nodata", "p99.9", "- → -"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdict lines (-want +got):\n%s", diff)
	}
}

// The page holds tables, not terminal text; the comparison comes before the detail; a long
// table folds behind its summary.
func TestHTMLPage(t *testing.T) {
	a, b := reporttest.Reviewed("ns", "a"), reporttest.Measured("ns", "b", 2, 11500, 900)
	for i := range 4 {
		w := b.Status.Results.PerWriter[0]
		w.Index = int32(8 + i)
		b.Status.Results.PerWriter = append(b.Status.Results.PerWriter, w)
	}
	var page bytes.Buffer
	if err := HTML(&page, "t", []*cbv1.BenchmarkRun{a, b}, []*cbv1.BenchmarkSweep{reporttest.Sweep("ns")}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if n := strings.Count(html, "<pre>"); n != 3 {
		t.Errorf("%d <pre> blocks, want only the three specs", n)
	}
	for _, table := range []string{"latency", "errors", "writers", "server", "points"} {
		if !strings.Contains(html, `data-table="`+table+`"`) {
			t.Errorf("no %s table", table)
		}
	}
	order := []string{`id="comparison"`, `id="glance"`, `id="charts"`, `id="run-0"`, `id="sweep-0"`}
	last := -1
	for _, id := range order {
		i := strings.Index(html, id)
		if i < last {
			t.Errorf("%s at %d comes before what precedes it in %v", id, i, order)
		}
		last = i
	}
	if !strings.Contains(html, "<details><summary>Writers: 12 writers: 1,292 to 1,590 ops/s each, p99 2.90 to 3.81 ms</summary>") {
		t.Errorf("the 12 writers' table does not fold behind its summary")
	}
	if strings.Contains(html, "<summary>Writers: 8 writers") {
		t.Errorf("the 8 writers' table is folded")
	}
}

func TestCharts(t *testing.T) {
	short := reporttest.Measured("ns", "short", 1, 10000, 1000)
	short.Status.Results.Timeline.Points = short.Status.Results.Timeline.Points[:30]
	long := reporttest.Measured("ns", "long", 2, 10000, 1000)
	f, ok := timelineFigure([]*cbv1.BenchmarkRun{short, long})
	// One time axis for both runs and both panels, as long as the longer window.
	if !ok || len(f.panels) != 2 || f.x.lo != 0 || f.x.hi != 600 || len(f.panels[0].lines) != 2 || len(f.panels[1].lines) != 2 {
		t.Errorf("timeline: ok %v, x %v..%v, panels %d", ok, f.x.lo, f.x.hi, len(f.panels))
	}
	d, ok := distributionFigure([]*cbv1.BenchmarkRun{short, long})
	var ticks []string
	for _, tk := range d.x.ticks {
		ticks = append(ticks, strconv.FormatFloat(math.Round(tk.v*1000)/1000, 'f', -1, 64)+"="+tk.label)
	}
	if want := []string{"0.301=50%", "1=90%", "2=99%", "3=99.9%", "4=99.99%"}; !ok || !cmp.Equal(ticks, want) {
		t.Errorf("HDR axis ticks %v, want %v", ticks, want)
	}
	sw := reporttest.Sweep("ns")
	s, ok := sweepFigure(sw, 0)
	if !ok || !s.panels[0].hasY2 || len(s.panels[0].markers) != 1 {
		t.Fatalf("sweep figure: ok %v, %+v", ok, s.panels)
	}
	if m := s.panels[0].markers[0]; m.x != 64 || m.y != 29600 {
		t.Errorf("best point marked at (%v, %v), want (64, 29600)", m.x, m.y)
	}
	if !regexp.MustCompile(`<g class="best" data-point="7" data-ops="29600">`).MatchString(string(s.svg())) {
		t.Errorf("the SVG marks no best point")
	}
	sw.Status.Best = nil
	if s, _ := sweepFigure(sw, 0); len(s.panels[0].markers) != 0 {
		t.Errorf("a sweep with no best point has a marker")
	}
}

func TestSweepCards(t *testing.T) {
	sw := reporttest.Sweep("ns")
	var got [][3]string
	for _, c := range sweepCards(sw) {
		got = append(got, [3]string{c.Metric, c.Raw, c.Value})
	}
	want := [][3]string{{"best.opsPerSecond", "29600", "29,600"}, {"best.p99", "7400", "7.40ms"}, {"points", "8/8 done, 1 failed", "7 of 8"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sweep cards (-want +got):\n%s", diff)
	}
	sw.Status.Best = nil
	if cs := sweepCards(sw); len(cs) != 1 {
		t.Errorf("a sweep with no best point has %d cards, want the points card", len(cs))
	}
}

// A sweep's runs named as the sweep names them are said once, not in a column.
func TestPointTableRuns(t *testing.T) {
	sw := reporttest.Sweep("ns")
	tb := pointTable(sw)
	if tb.Head[len(tb.Head)-1] == "runs" || !strings.Contains(strings.Join(tb.Notes, "\n"), "named writers-by-key-POINT-REPEAT") {
		t.Errorf("conventional names: head %v, notes %v", tb.Head, tb.Notes)
	}
	sw.Status.Table[3].Runs[1] = "renamed"
	tb = pointTable(sw)
	if tb.Head[len(tb.Head)-1] != "runs" || tb.Rows[3].Cells[len(tb.Head)-1] != "writers-by-key-3-0 renamed writers-by-key-3-2" {
		t.Errorf("other names: head %v, row 3 %v", tb.Head, tb.Rows[3].Cells)
	}
}

// The server timeline gets its two panels under the client's, on the same X axis, with the
// intervals' figures; a run without one gets no server panel.
func TestTimelineFigureHasTheServerPanels(t *testing.T) {
	f, ok := timelineFigure([]*cbv1.BenchmarkRun{reporttest.Reviewed("ns", "r")})
	if !ok || len(f.panels) != 4 || f.panels[2].name != "server-pending" || f.panels[3].name != "server-work" {
		t.Fatalf("panels %+v", f.panels)
	}
	q := f.panels[2].lines[0]
	if len(q.points) != 30 || q.points[20] != [2]float64{410, 41} {
		t.Errorf("pending: %d points, point 20 at %v", len(q.points), q.points[20])
	}
	if f.x.hi < 600 {
		t.Errorf("the X axis ends at %g s, before the window's 600 s", f.x.hi)
	}
	// The queue is a level sampled (a line); compactions, flushes and GC milliseconds are
	// counts of each interval, drawn as bars side by side in it.
	if q.bars != nil {
		t.Error("the queue is drawn as bars")
	}
	for i, l := range f.panels[3].lines {
		if l.bars == nil || l.bars.slot != i || l.bars.slots != 3 || l.bars.width != 20 {
			t.Errorf("%s: bars %+v, want slot %d of 3, 20 s wide", l.name, l.bars, i)
		}
	}
	svg := string(f.svg())
	if n := strings.Count(svg, `data-kind="bars"`); n != 3 {
		t.Errorf("%d bar series drawn, want 3", n)
	}
	f, _ = timelineFigure([]*cbv1.BenchmarkRun{reporttest.Measured("ns", "m", 1, 10000, 1000)})
	if len(f.panels) != 2 {
		t.Errorf("a run without a server timeline has %d panels", len(f.panels))
	}
}
