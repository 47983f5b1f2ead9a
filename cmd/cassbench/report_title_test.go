package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A page made from results files is titled by the experiments' names, not the files' paths.
func TestReportTitleNamesTheExperiments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep.html")
	if code := reportMain(context.Background(), []string{"-f", "-o", out, filepath.Join(goldenDir, "sweep.json")}, io.Discard); code != 0 {
		t.Fatalf("cassbench report exited %d", code)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<title>cassbench: writers-by-key</title>"; !strings.Contains(string(page), want) {
		i := strings.Index(string(page), "<title>")
		t.Errorf("page title %.80q, want %s", string(page[max(i, 0):]), want)
	}
}
