// Package browser opens the HTML report in a real headless Chromium: the page must draw
// every chart, with the expected series, and log no error.
package browser

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

func chromium(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join("..", "..", "hack", "chromium.sh")).Output()
	if err != nil {
		t.Fatalf("no headless Chromium (hack/chromium.sh): %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestReportRendersInABrowser(t *testing.T) {
	browser := chromium(t)
	runs := []*cbv1.BenchmarkRun{
		reporttest.Measured("ns", "base", 1, 10000, 1000),
		reporttest.Measured("ns", "faster", 2, 11500, 900),
		reporttest.Run("ns"), // no timeline sketches: in the tables, in no chart
	}
	runs[2].Status.Results.Timeline = nil
	sweeps := []*cbv1.BenchmarkSweep{reporttest.Sweep("ns")}
	var page bytes.Buffer
	if err := report.HTML(&page, "two runs and a sweep", runs, sweeps, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	// The SVG namespace is a name, not an address; anything else the page would fetch is.
	offline := strings.ReplaceAll(page.String(), "http://www.w3.org/2000/svg", "")
	for _, forbidden := range []string{"http://", "https://", "<link", "src=", "url(", "fetch("} {
		if strings.Contains(offline, forbidden) {
			t.Errorf("the page is not self-contained: it holds %q", forbidden)
		}
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// --dump-dom prints the document after its scripts ran; console messages go to stderr.
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--enable-logging=stderr", "--v=0", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	dom := stdout.String()
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("the page logged: %s", line)
		}
	}
	// Charts: the runs' throughput and p99 (two runs with timelines each), their latency
	// distribution (two with sketches), and the sweep's two curves, a line per key design.
	want := map[string]int{"throughput": 2, "p99": 2, "distribution": 2, "sweep0-ops": 2, "sweep0-p99": 2}
	if !strings.Contains(dom, `data-charts-drawn="5"`) {
		t.Errorf("the script did not draw the 5 charts; body: %.300s", dom[strings.Index(dom, "<body"):])
	}
	svg := regexp.MustCompile(`(?s)<svg[^>]*data-chart="([^"]+)"[^>]*>(.*?)</svg>`)
	got := map[string]int{}
	for _, m := range svg.FindAllStringSubmatch(dom, -1) {
		got[m[1]] = strings.Count(m[2], `class="series"`)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("chart %s has %d series, want %d", id, got[id], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("charts drawn: %v, want %v", got, want)
	}
	for _, text := range []string{"BenchmarkRun base", "BenchmarkSweep writers-by-key", "Compared with base", "better"} {
		if !strings.Contains(dom, text) {
			t.Errorf("the page lacks %q", text)
		}
	}
}
