package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

// results -f FILE --hdr-log writes the run's interval log beside its table (internal/hdrlog
// checks the log's percentiles with an independent reader); a sweep has none of its own.
func TestResultsWritesAnHdrLog(t *testing.T) {
	dir := resultsDir(t, reporttest.Measured("ns", "measured", 1, 10000, 1000))
	log := filepath.Join(t.TempDir(), "run.hlog")
	var stdout, stderr bytes.Buffer
	if code := resultsMain(context.Background(), []string{"-f", filepath.Join(dir, "measured.json"), "--hdr-log", log}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "#[Histogram log format version 1.3]" || !strings.HasPrefix(lines[len(lines)-1], "Tag=writes-response,0.000,600.000,") ||
		!strings.Contains(stdout.String(), "measured") {
		t.Errorf("log:\n%s\ntable:\n%s", b, stdout.String())
	}

	var sweep bytes.Buffer
	if err := report.Sweep(&sweep, reporttest.Sweep("ns"), report.JSON); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(path, sweep.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := resultsMain(context.Background(), []string{"-f", path, "--hdr-log", log + "2"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--hdr-log needs a BenchmarkRun") {
		t.Errorf("a sweep: exit %d, %s", code, stderr.String())
	}
}
