package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/compare"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// compare says the same of runs in the cluster and of the files their results were saved in;
// a faster configuration is better, two runs of the same are not different.
func TestCompareClusterAndFiles(t *testing.T) {
	env := kube.Start(t)
	ns := env.Namespace(t)
	ctx := context.Background()
	dir := t.TempDir()
	runs := []*cbv1.BenchmarkRun{
		reporttest.Measured(ns, "base", 1, 10000, 1000),
		reporttest.Measured(ns, "faster", 2, 11500, 900),
		reporttest.Measured(ns, "again", 3, 10000, 1000),
	}
	for _, r := range runs {
		var file bytes.Buffer
		if err := report.Run(&file, r, report.JSON); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.Name+".json"), file.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		createWithStatus(t, env.Client, r)
	}
	kubeconfig := writeKubeconfig(t, env, ns)
	file := func(name string) string { return filepath.Join(dir, name+".json") }

	var table, fromCluster, fromFiles, stderr bytes.Buffer
	if code := compareMain(ctx, []string{"--kubeconfig", kubeconfig, "base", "faster", "again", "--plot", filepath.Join(dir, "c.png")}, &table, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	checkPlot(t, filepath.Join(dir, "c.png"))
	t.Log("\n" + table.String())
	if code := compareMain(ctx, []string{"--kubeconfig", kubeconfig, "-o", "csv", "base", "faster", "again"}, &fromCluster, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := compareMain(ctx, []string{"-f", "-o", "csv", file("base"), file("faster"), file("again")}, &fromFiles, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	// The sides are named as they were given; the figures and verdicts must agree.
	got := strings.NewReplacer(file("base"), "base", file("faster"), "faster", file("again"), "again").Replace(fromFiles.String())
	if got != fromCluster.String() {
		t.Errorf("files and cluster disagree:\n%s\n---\n%s", fromCluster.String(), got)
	}

	var js bytes.Buffer
	if code := compareMain(ctx, []string{"-f", "-o", "json", file("base"), file("faster"), file("again")}, &js, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var cs []compare.Comparison
	if err := json.Unmarshal(js.Bytes(), &cs); err != nil {
		t.Fatal(err)
	}
	verdict := func(c compare.Comparison, metric string) string {
		for _, r := range c.Rows {
			if r.Metric == metric {
				return r.Verdict
			}
		}
		return ""
	}
	if len(cs) != 2 || verdict(cs[0], "ops/s") != compare.Better || verdict(cs[0], "p50") != compare.TooLittleData ||
		verdict(cs[1], "ops/s") != compare.NoDifference || verdict(cs[1], "p99") != compare.TooLittleData {
		t.Errorf("verdicts: %s", js.String())
	}

	for name, tc := range map[string]struct {
		args   []string
		code   int
		stderr string
	}{
		"one side":   {[]string{"-f", file("base")}, 2, "at least one experiment"},
		"sweep file": {[]string{"-f", file("base"), filepath.Join(goldenDir, "sweep.json")}, 1, "keeps no runs' results"},
		"bad alpha":  {[]string{"-f", "--alpha", "2", file("base"), file("again")}, 2, "--alpha"},
		"csv":        {[]string{"-f", "-o", "csv", file("base"), file("again")}, 0, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := compareMain(ctx, tc.args, &out, &errOut); code != tc.code || !strings.Contains(errOut.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), tc.code, tc.stderr)
			}
			if name == "csv" && !strings.HasPrefix(out.String(), "baseline,name,metric,") {
				t.Errorf("csv: %.100s", out.String())
			}
		})
	}
}
