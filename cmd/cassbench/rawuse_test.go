package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// rawSummary is the termination message of a writer that made ok writes at 1 ms in 10 s on
// cpu millicores of a 1,000 limit.
func rawSummary(t *testing.T, index int32, ok, cpu int64) string {
	t.Helper()
	sk := sketch.New()
	sk.AddN(1000, uint64(ok))
	s := &summary.Summary{Version: summary.Version, Index: index, Writers: 2, Start: 1_000, End: 11_000, SpanMicros: 10_000_000,
		Writes: &summary.Ops{OK: ok, Response: sk}, CPU: &summary.WriterCPU{UsedMillicores: cpu, LimitMillicores: 1000}}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// report and compare read the writers' raw reports back from the ConfigMaps the run owns, as
// results --reports does, and from a file that -o json wrote.
func rawReportsRead(t *testing.T, env *kube.Env, kubeconfig, ns string) {
	ctx := context.Background()
	run := reporttest.Run(ns)
	run.Name = "raw-use"
	reports := []cbv1.WriterReport{
		{Index: 0, Pod: "raw-use-writer-0", Reason: "Completed", Summary: rawSummary(t, 0, 10_000, 300)},
		{Index: 1, Pod: "raw-use-writer-1", Reason: "Completed", Summary: rawSummary(t, 1, 20_000, 600)},
	}
	for _, r := range reports {
		run.Status.WriterReports = append(run.Status.WriterReports, reportstore.Compact(r, reportstore.Name(run.Name, r.Index)))
	}
	createWithStatus(t, env.Client, run)
	for _, cm := range reportstore.ConfigMaps(run, reports) {
		if err := env.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()

	page := filepath.Join(dir, "raw.html")
	var stderr bytes.Buffer
	if code := reportMain(ctx, []string{"--kubeconfig", kubeconfig, "raw-use", "-o", page}, &stderr); code != 0 {
		t.Fatalf("report: exit code %d: %s", code, stderr.String())
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// Writer 1's CPU is only in its raw report.
	if !bytes.Contains(html, []byte("Writers&#39; own reports")) || !bytes.Contains(html, []byte("600 of 1,000")) {
		t.Errorf("the page does not show the writers' raw reports; stderr %q", stderr.String())
	}

	const wantLine = "writers of raw-use (2 raw reports): ops/s each 1000 to 2000 (median 2000);"
	compareOut := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := compareMain(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("compare %v: exit code %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	if out := compareOut("--writers", "raw-use", "raw-use"); strings.Count(out, wantLine) != 2 {
		t.Errorf("compare --writers from the cluster: want both sides' line %q in:\n%s", wantLine, out)
	}
	if out := compareOut("raw-use", "raw-use"); strings.Contains(out, "writers of") {
		t.Errorf("compare without --writers prints the writers:\n%s", out)
	}

	var doc, errOut bytes.Buffer
	if code := resultsMain(ctx, []string{"--kubeconfig", kubeconfig, "raw-use", "-o", "json"}, &doc, &errOut); code != 0 {
		t.Fatalf("results -o json: exit code %d: %s", code, errOut.String())
	}
	file := filepath.Join(dir, "raw.json")
	if err := os.WriteFile(file, doc.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := compareOut("-f", "--writers", file, file); strings.Count(out, strings.Replace(wantLine, "raw-use", file, 1)) != 2 {
		t.Errorf("compare --writers from files: want both sides' line in:\n%s", out)
	}
	var stdout bytes.Buffer
	stderr.Reset()
	if code := compareMain(ctx, []string{"--kubeconfig", kubeconfig, "--writers", "-o", "json", "raw-use", "raw-use"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--writers prints text") {
		t.Errorf("compare --writers -o json: exit code %d, stderr %q; want 2 and the reason", code, stderr.String())
	}
}
