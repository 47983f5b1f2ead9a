// Package browser opens the HTML report in a real headless Chromium: the page must draw
// every chart with the expected series, log no error, fit a 1280 px window, show on its
// cards exactly the runs' status figures, and print with no table cut.
package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// The browser is an outside program like the control plane: the package is in the
// integration tier, whose make targets install it (hack/chromium.sh).
func TestMain(m *testing.M) {
	tier.Main(tier.Integration)
	os.Exit(m.Run())
}

var generated = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

// TestReportPages renders the pages a review holds (one run, two runs compared, a sweep) and
// checks each in the browser at 1280x800; the screenshots and the PDF stay in the logged
// directory (CASSBENCH_BROWSER_OUT keeps them after the test).
func TestReportPages(t *testing.T) {
	b := newBrowser(t)
	cases := map[string]struct {
		runs   []*cbv1.BenchmarkRun
		sweeps []*cbv1.BenchmarkSweep
		// series per chart; verdicts the comparison must show.
		charts map[string]int
		// panels: series per panel of the timeline chart, where the case checks them; bars:
		// those of them drawn as bars, each with a bar per interval.
		panels   map[string]int
		bars     map[string]int
		verdicts int
		best     string
	}{
		// The reviewed run has a server timeline: its queue in a panel of its own, its
		// compactions, flushes and GC pauses in the next, on the client's time axis.
		"run": {runs: []*cbv1.BenchmarkRun{reporttest.Reviewed("ns", "ip-by-city-8")},
			charts: map[string]int{"timeline": 6, "distribution": 1},
			panels: map[string]int{"throughput": 1, "p99": 1, "server-pending": 1, "server-work": 3},
			bars:   map[string]int{"throughput": 0, "p99": 0, "server-pending": 0, "server-work": 3}},
		"comparison": {runs: []*cbv1.BenchmarkRun{reporttest.Measured("ns", "base", 1, 10000, 1000), reporttest.Measured("ns", "faster", 2, 11500, 900)},
			charts: map[string]int{"timeline": 4, "distribution": 2}, verdicts: 5},
		"sweep": {sweeps: []*cbv1.BenchmarkSweep{reporttest.Sweep("ns")}, charts: map[string]int{"sweep0": 4}, best: "7"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var page bytes.Buffer
			if err := report.HTML(&page, "cassbench: "+name, tc.runs, tc.sweeps, generated); err != nil {
				t.Fatal(err)
			}
			checkOffline(t, page.String())
			got := b.inspect(t, name, page.Bytes(), 1280, 800, false)
			checkFits(t, got, 1280)
			checkCards(t, got, tc.runs)
			if g := chartSeries(got.DOM); !equalCounts(g, tc.charts) {
				t.Errorf("charts and their series: %v, want %v", g, tc.charts)
			}
			if tc.panels != nil {
				if g := panelSeries(got.DOM, "timeline"); !equalCounts(g, tc.panels) {
					t.Errorf("timeline panels and their series: %v, want %v", g, tc.panels)
				}
			}
			if tc.bars != nil {
				if g := panelBars(t, got.DOM, "timeline", tc.runs[0]); !equalCounts(g, tc.bars) {
					t.Errorf("timeline panels and their bar series: %v, want %v", g, tc.bars)
				}
			}
			if n := strings.Count(got.DOM, `class="verdict `); n != tc.verdicts {
				t.Errorf("%d verdict lines, want %d", n, tc.verdicts)
			}
			if tc.best != "" && !slicesEqual(got.Best, []string{tc.best}) {
				t.Errorf("best point marked on the chart: %v, want point %s", got.Best, tc.best)
			}
			checkSweepCards(t, got, tc.sweeps)
			// On paper: with the print stylesheet at A4's printable width (210 mm less 12 mm
			// margins, 703 px), every table is open and fits the page.
			printed := b.inspect(t, name+"-print", page.Bytes(), 703, 1000, true)
			checkFits(t, printed, 703)
			if printed.Tables == 0 || printed.HiddenTables != 0 {
				t.Errorf("printed: %d tables, %d of them hidden", printed.Tables, printed.HiddenTables)
			}
			b.screenshot(t, name, 1280, min(max(got.Height, 800), 6000))
			b.printPDF(t, name)
		})
	}
}

// TestReportRendersInABrowser is every kind of experiment on one page: runs with and without
// timelines and sketches, and a sweep.
func TestReportRendersInABrowser(t *testing.T) {
	b := newBrowser(t)
	runs := []*cbv1.BenchmarkRun{
		reporttest.Measured("ns", "base", 1, 10000, 1000),
		reporttest.Measured("ns", "faster", 2, 11500, 900),
		reporttest.Run("ns"), // no timeline, no sketches: in the tables and cards, in no chart
	}
	runs[2].Status.Results.Timeline = nil
	sweeps := []*cbv1.BenchmarkSweep{reporttest.Sweep("ns")}
	var page bytes.Buffer
	if err := report.HTML(&page, "two runs and a sweep", runs, sweeps, generated); err != nil {
		t.Fatal(err)
	}
	checkOffline(t, page.String())
	got := b.inspect(t, "all", page.Bytes(), 1280, 800, false)
	checkFits(t, got, 1280)
	checkCards(t, got, runs)
	// The runs' throughput and p99 (two panels, two runs with timelines), their latency
	// distribution (two with sketches), and the sweep's curves: ops/s and p99 per key design.
	want := map[string]int{"timeline": 4, "distribution": 2, "sweep0": 4}
	if g := chartSeries(got.DOM); !equalCounts(g, want) {
		t.Errorf("charts and their series: %v, want %v", g, want)
	}
	for _, text := range []string{"BenchmarkRun base", "BenchmarkSweep writers-by-key", "Compared with base", "better", "At a glance"} {
		if !strings.Contains(got.DOM, text) {
			t.Errorf("the page lacks %q", text)
		}
	}
	// The verdicts come before the detail.
	if c, d := strings.Index(got.DOM, `id="comparison"`), strings.Index(got.DOM, `id="run-0"`); c < 0 || c > d {
		t.Errorf("the comparison (at %d) is not above the runs' detail (at %d)", c, d)
	}
	b.screenshot(t, "all", 1280, min(max(got.Height, 800), 8000))
}

// checkOffline: the SVG namespace is a name, not an address; anything else the page would
// fetch is.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	for _, forbidden := range []string{"http://", "https://", "<link", "src=", "url(", "fetch(", "@import", "<script"} {
		if strings.Contains(page, forbidden) {
			t.Errorf("the page is not self-contained: it holds %q", forbidden)
		}
	}
}

func checkFits(t *testing.T, got inspection, width int) {
	t.Helper()
	if got.InnerWidth != width {
		t.Errorf("window %d px wide, want %d", got.InnerWidth, width)
	}
	if got.ScrollWidth > got.InnerWidth {
		t.Errorf("the page scrolls sideways: %d px wide in a %d px window", got.ScrollWidth, got.InnerWidth)
	}
	if len(got.Wider) > 0 {
		t.Errorf("at %d px, elements reach past the window's right edge: %v", width, got.Wider)
	}
}

// checkCards holds every card against the status field it names, and its shown number
// against its raw value.
func checkCards(t *testing.T, got inspection, runs []*cbv1.BenchmarkRun) {
	t.Helper()
	byRun := map[string]map[string]shownCard{}
	for _, c := range got.Cards {
		if byRun[c.Run] == nil {
			byRun[c.Run] = map[string]shownCard{}
		}
		byRun[c.Run][c.Metric] = c
	}
	for _, run := range runs {
		want := statusFigures(run)
		cards := byRun[run.Name]
		if len(cards) != len(want) {
			t.Errorf("run %s has cards %v, want one for each of %v", run.Name, keys(cards), want)
		}
		for metric, raw := range want {
			c, ok := cards[metric]
			if !ok {
				t.Errorf("run %s: no %s card", run.Name, metric)
				continue
			}
			if c.Value != raw {
				t.Errorf("run %s: the %s card holds %q, the status %q", run.Name, metric, c.Value, raw)
			}
			if err := shownMatches(c.Shown, raw); err != nil {
				t.Errorf("run %s: the %s card shows %q for %s: %v", run.Name, metric, c.Shown, raw, err)
			}
		}
	}
}

// checkSweepCards holds a sweep's best-point cards against its table's row.
func checkSweepCards(t *testing.T, got inspection, sweeps []*cbv1.BenchmarkSweep) {
	t.Helper()
	for _, sw := range sweeps {
		want := map[string]string{}
		for _, p := range sw.Status.Table {
			if sw.Status.Best != nil && p.Point == sw.Status.Best.Point {
				want["best.opsPerSecond"], want["best.p99"] = strconv.FormatInt(p.OpsPerSecond, 10), strconv.FormatInt(p.P99, 10)
			}
		}
		n := 0
		for _, c := range got.SweepCards {
			if raw, ok := want[c.Metric]; ok && c.Run == sw.Name {
				n++
				if c.Value != raw || shownMatches(c.Shown, raw) != nil {
					t.Errorf("sweep %s: the %s card holds %q and shows %q, the table %q", sw.Name, c.Metric, c.Value, c.Shown, raw)
				}
			}
		}
		if n != len(want) {
			t.Errorf("sweep %s: %d best-point cards, want %d", sw.Name, n, len(want))
		}
	}
}

// chartSeries counts the series of each chart in the DOM.
func chartSeries(dom string) map[string]int {
	svg := regexp.MustCompile(`(?s)<svg[^>]*data-chart="([^"]+)"[^>]*>(.*?)</svg>`)
	got := map[string]int{}
	for _, m := range svg.FindAllStringSubmatch(dom, -1) {
		got[m[1]] = strings.Count(m[2], `class="series"`)
	}
	return got
}

// panelSeries counts the series of each panel of one chart in the DOM.
func panelSeries(dom, chart string) map[string]int {
	svg := regexp.MustCompile(`(?s)<svg[^>]*data-chart="` + regexp.QuoteMeta(chart) + `"[^>]*>(.*?)</svg>`).FindStringSubmatch(dom)
	got := map[string]int{}
	if svg == nil {
		return got
	}
	panel := regexp.MustCompile(`^([^"]+)"`)
	for _, part := range strings.Split(svg[1], `<g class="panel" data-panel="`)[1:] {
		if m := panel.FindStringSubmatch(part); m != nil {
			got[m[1]] = strings.Count(part, `class="series"`)
		}
	}
	return got
}

// panelBars counts the series drawn as bars in each panel of one chart, and checks that each
// has a bar per point of the run's server timeline.
func panelBars(t *testing.T, dom, chart string, run *cbv1.BenchmarkRun) map[string]int {
	t.Helper()
	svg := regexp.MustCompile(`(?s)<svg[^>]*data-chart="` + regexp.QuoteMeta(chart) + `"[^>]*>(.*?)</svg>`).FindStringSubmatch(dom)
	got := map[string]int{}
	if svg == nil {
		return got
	}
	points := len(run.Status.Results.Server.Timeline.Points)
	series := regexp.MustCompile(`(?s)<g class="series" data-kind="bars" data-series="([^"]+)">(.*?)</g>`)
	panel := regexp.MustCompile(`^([^"]+)"`)
	for _, part := range strings.Split(svg[1], `<g class="panel" data-panel="`)[1:] {
		m := panel.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		bars := series.FindAllStringSubmatch(part, -1)
		got[m[1]] = len(bars)
		for _, b := range bars {
			if n := strings.Count(b[2], "<rect"); n != points {
				t.Errorf("%s: %d bars, want one per interval (%d)", b[1], n, points)
			}
		}
	}
	return got
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func slicesEqual(a, b []string) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// outDir is where pages, screenshots and PDFs go: CASSBENCH_BROWSER_OUT, else the test's
// temporary directory.
func outDir(t *testing.T) string {
	if d := os.Getenv("CASSBENCH_BROWSER_OUT"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func runWithin(t *testing.T, name string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, e.String())
	}
	return o.String(), e.String()
}
