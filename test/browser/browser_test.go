package browser

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// browser runs the headless Chromium hack/chromium.sh finds, one process per look.
type browser struct {
	path, dir string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	out, err := exec.Command(filepath.Join("..", "..", "hack", "chromium.sh")).Output()
	if err != nil {
		t.Fatalf("no headless Chromium (hack/chromium.sh): %v", err)
	}
	b := &browser{path: strings.TrimSpace(string(out)), dir: outDir(t)}
	t.Logf("pages, screenshots and PDFs in %s", b.dir)
	return b
}

func (b *browser) args(extra ...string) []string {
	return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(b.dir, "profile")}, extra...)
}

// inspection is what the probe script measured in the page.
type inspection struct {
	InnerWidth, ScrollWidth, Height int
	Wider                           []string
	Cards, SweepCards               []shownCard
	Best                            []string
	Tables, HiddenTables            int
	DOM                             string `json:"-"`
}

type shownCard struct{ Run, Metric, Value, Shown string }

// probe runs in the page after it is laid out and leaves its measures in the DOM, which
// --dump-dom prints: the page's width, every element reaching past the window's right
// edge, the cards, the best points marked on charts and the tables laid out.
const probe = `<script>(function () {
  var W = window.innerWidth, wider = [];
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 0.5) {
      wider.push(e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? "." + e.className : "") + " right=" + Math.round(r.right));
    }
  });
  var cards = [].map.call(document.querySelectorAll(".glance-run .card"), function (c) {
    return {Run: c.closest(".glance-run").dataset.run, Metric: c.dataset.metric, Value: c.dataset.value,
      Shown: c.querySelector(".value").textContent};
  });
  var sweepCards = [].map.call(document.querySelectorAll(".cards[data-sweep] .card"), function (c) {
    return {Run: c.parentNode.dataset.sweep, Metric: c.dataset.metric, Value: c.dataset.value,
      Shown: c.querySelector(".value").textContent};
  });
  var best = [].map.call(document.querySelectorAll("svg .best"), function (g) { return g.dataset.point; });
  var tables = document.querySelectorAll("table"), hidden = 0;
  tables.forEach(function (t) { if (t.getClientRects().length === 0) { hidden++; } });
  var out = document.createElement("pre");
  out.id = "cassbench-probe";
  out.textContent = JSON.stringify({InnerWidth: W, ScrollWidth: document.documentElement.scrollWidth,
    Height: document.documentElement.scrollHeight, Wider: wider, Cards: cards, SweepCards: sweepCards, Best: best,
    Tables: tables.length, HiddenTables: hidden});
  out.style.display = "none";
  document.body.appendChild(out);
})();</script>`

var probeOut = regexp.MustCompile(`(?s)<pre id="cassbench-probe"[^>]*>(.*?)</pre>`)

// inspect opens the page at width x height with the probe added (and, for print, the print
// stylesheet applied on screen), and fails the test on any console message.
func (b *browser) inspect(t *testing.T, name string, page []byte, width, height int, print bool) inspection {
	t.Helper()
	if err := os.WriteFile(filepath.Join(b.dir, name+".html"), page, 0o644); err != nil {
		t.Fatal(err)
	}
	probed := strings.Replace(string(page), "</body>", probe+"</body>", 1)
	if print {
		probed = strings.ReplaceAll(probed, "@media print", "@media all")
	}
	path := filepath.Join(b.dir, name+"-probed.html")
	if err := os.WriteFile(path, []byte(probed), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, stderr := runWithin(t, b.path, b.args("--enable-logging=stderr", "--v=0",
		fmt.Sprintf("--window-size=%d,%d", width, height), "--dump-dom", "file://"+path)...)
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("the page logged: %s", line)
		}
	}
	m := probeOut.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe left no result; body: %.300s", dom)
	}
	var got inspection
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("reading the probe's result: %v", err)
	}
	got.DOM = dom
	return got
}

// screenshot keeps a picture of the page, the whole of it, for a person to look at.
func (b *browser) screenshot(t *testing.T, name string, width, height int) {
	t.Helper()
	path := filepath.Join(b.dir, name+".png")
	runWithin(t, b.path, b.args(fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+path,
		"file://"+filepath.Join(b.dir, name+".html"))...)
	if fi, err := os.Stat(path); err != nil || fi.Size() < 10_000 {
		t.Errorf("screenshot %s: %v", path, err)
	}
}

// printPDF prints the page as Chromium's print dialog would.
func (b *browser) printPDF(t *testing.T, name string) {
	t.Helper()
	path := filepath.Join(b.dir, name+".pdf")
	runWithin(t, b.path, b.args("--no-pdf-header-footer", "--print-to-pdf="+path, "file://"+filepath.Join(b.dir, name+".html"))...)
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(data), "%PDF") || len(data) < 10_000 {
		t.Errorf("%s is no PDF of the page (%d bytes): %v", path, len(data), err)
	}
}

// statusFigures are the status fields a run's cards show, as stored.
func statusFigures(run *cbv1.BenchmarkRun) map[string]string {
	r := run.Status.Results
	out := map[string]string{}
	if r == nil {
		return out
	}
	out["opsPerSecond"] = strconv.FormatInt(r.OpsPerSecond, 10)
	for name, o := range map[string]*cbv1.OperationResults{"writes": r.Writes, "reads": r.Reads} {
		if o != nil {
			out[name+".p99"] = strconv.FormatInt(o.Response.P99, 10)
			out[name+".p999"] = strconv.FormatInt(o.Response.P999, 10)
		}
	}
	out["timeoutsPerAttempt"], out["timeoutsPerOperation"] = r.TimeoutsPerAttempt, r.TimeoutsPerOperation
	if r.Bottleneck != nil {
		out["bottleneck"] = string(r.Bottleneck.Verdict)
	}
	return out
}

// shownMatches says whether the number a card shows ("16,021", "3.31ms", "0.0001%") is its
// raw value (ops/s, microseconds, a ratio) as rounded for display.
func shownMatches(shown, raw string) error {
	want, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		if shown != raw {
			return fmt.Errorf("not the status value")
		}
		return nil
	}
	s, scale, tolerance := strings.ReplaceAll(shown, ",", ""), 1.0, 0.01
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"%", 0.01}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}} {
		if strings.HasSuffix(s, u.suffix) {
			s, scale = strings.TrimSuffix(s, u.suffix), u.scale
			if u.suffix == "%" {
				tolerance = 0.05 // two significant digits
			}
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	v *= scale
	if d := v - want; d > tolerance*want || -d > tolerance*want {
		return fmt.Errorf("%g is not %g", v, want)
	}
	return nil
}
