package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// nightly is run i of a nightly experiment in namespace ns: 10,000 ops/s times level, with
// 1% noise drawn from seed i.
func nightly(ns string, i int, level float64) *cbv1.BenchmarkRun {
	run := reporttest.Run(ns)
	run.Name = fmt.Sprintf("nightly-%03d", i)
	rng := rand.New(rand.NewPCG(uint64(i), 9))
	r := run.Status.Results
	r.WindowStart = metav1.NewTime(time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC).Add(time.Duration(i) * 24 * time.Hour))
	r.OpsPerSecond = int64(10000 * level * (1 + 0.01*rng.NormFloat64()))
	r.Writes.Response.P99 = int64(3000 * (1 + 0.01*rng.NormFloat64()))
	return run
}

// resultsDir writes the runs' results files into a new directory, as a GitOps repository
// keeps them.
func resultsDir(t *testing.T, runs ...*cbv1.BenchmarkRun) string {
	t.Helper()
	dir := t.TempDir()
	for _, r := range runs {
		var b bytes.Buffer
		if err := report.Run(&b, r, report.JSON); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.Name+".json"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// series is n nightly runs at full level, then the levels given.
func seriesRuns(ns string, n int, then ...float64) []*cbv1.BenchmarkRun {
	var runs []*cbv1.BenchmarkRun
	for i := range n {
		runs = append(runs, nightly(ns, i, 1))
	}
	for j, l := range then {
		runs = append(runs, nightly(ns, n+j, l))
	}
	return runs
}

func TestGateExitCodes(t *testing.T) {
	ctx := context.Background()
	regressed := resultsDir(t, seriesRuns("ns", 20, 0.92, 0.92, 0.92)...)
	cases := map[string]struct {
		args []string
		code int
		want string
	}{
		"a regression": {[]string{regressed}, 1,
			"REGRESSED nightly: nightly-022 regressed against 22 runs before it\n  ops/s -8."},
		"no regression":      {[]string{resultsDir(t, seriesRuns("ns", 20)...)}, 0, "PASSED nightly: no figure of nightly-019 is a significant regression against 19 runs before it\n"},
		"too little history": {[]string{resultsDir(t, seriesRuns("ns", 5)...)}, 3, "TOO LITTLE HISTORY nightly: 4 runs of nightly came before nightly-004; the gate needs 9\n"},
		"json":               {[]string{regressed, "-o", "json"}, 1, `"verdict": "regressed"`},
		"a named baseline": {[]string{"--baseline", strings.Join([]string{filepath.Join(regressed, "nightly-000.json"),
			filepath.Join(regressed, "nightly-001.json"), filepath.Join(regressed, "nightly-002.json"), filepath.Join(regressed, "nightly-003.json")}, ","),
			"--min-history", "3", "--newest-alpha", "0.01", filepath.Join(regressed, "nightly-021.json")}, 1,
			"REGRESSED nightly: nightly-021 regressed against 4 runs before it\n  ops/s -7.5% (9983 -> 9232) from nightly-021: newest run"},
		"an unknown experiment": {[]string{regressed, "--experiment", "other"}, 2, ""},
		"no directory":          {[]string{filepath.Join(regressed, "none")}, 2, ""},
		"two directories":       {[]string{regressed, regressed}, 2, ""},
		"a directory and -l":    {[]string{regressed, "-l", "a=b"}, 2, ""},
		"min-history 1":         {[]string{regressed, "--min-history", "1"}, 2, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := gateMain(ctx, tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("exit %d, want %d; output:\n%s\nwant it to contain:\n%s\nstderr: %s", code, tc.code, stdout.String(), tc.want, stderr.String())
			}
		})
	}
}

func TestHistoryFromFiles(t *testing.T) {
	ctx := context.Background()
	runs := seriesRuns("ns", 20, 0.9, 0.9, 0.9, 0.9, 0.9)
	other := reporttest.Run("ns")
	other.Name = "writers-24-r1"
	dir := resultsDir(t, append(runs, other)...)
	if err := os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"kind":"Note"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	otava := filepath.Join(t.TempDir(), "otava")
	var stdout, stderr bytes.Buffer
	if code := historyMain(ctx, []string{dir, "--otava", otava}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	t.Log("\n" + stdout.String())
	for _, want := range []string{"experiment nightly: 25 runs", "ops/s -10.", "at nightly-020", "a regression",
		"experiment writers-24: 1 runs", "no significant change"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("history does not say %q", want)
		}
	}
	if !strings.Contains(stderr.String(), "left out "+filepath.Join(dir, "notes.json")) {
		t.Errorf("stderr does not name the file left out:\n%s", stderr.String())
	}
	for _, f := range []string{"otava.yaml", "nightly.csv", "writers-24.csv"} {
		if _, err := os.Stat(filepath.Join(otava, f)); err != nil {
			t.Errorf("--otava wrote no %s: %v", f, err)
		}
	}
	plot := filepath.Join(t.TempDir(), "nightly.png")
	if code := historyMain(ctx, []string{dir, "--experiment", "nightly", "--plot", plot}, io.Discard, &stderr); code != 0 {
		t.Fatalf("--plot: exit %d: %s", code, stderr.String())
	}
	checkPlot(t, plot)
	stderr.Reset()
	if code := historyMain(ctx, []string{dir, "--plot", plot}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "--plot draws one experiment, and 2 were found") {
		t.Errorf("--plot of two experiments: exit %d, %s", code, stderr.String())
	}
	stdout.Reset()
	if code := historyMain(ctx, []string{dir, "-o", "csv", "--experiment", "nightly"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 26 || !strings.HasPrefix(lines[1], "nightly,nightly-000,2026-10-01T02:00:00Z,,") {
		t.Errorf("CSV:\n%s", stdout.String())
	}
}

// history -l and gate -l read the runs in the cluster that the selector selects.
func TestHistoryAndGateFromTheCluster(t *testing.T) {
	env := kube.Start(t)
	ns := env.Namespace(t)
	ctx := context.Background()
	for _, r := range seriesRuns(ns, 12, 0.9) {
		r.Labels = map[string]string{cbv1.ExperimentLabel: "nightly-writes"}
		createWithStatus(t, env.Client, r)
	}
	unlabelled := nightly(ns, 99, 0.5)
	createWithStatus(t, env.Client, unlabelled)
	kubeconfig := writeKubeconfig(t, env, ns)
	var stdout, stderr bytes.Buffer
	if code := historyMain(ctx, []string{"--kubeconfig", kubeconfig, "-l", cbv1.ExperimentLabel + "=nightly-writes"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "experiment nightly-writes: 13 runs") {
		t.Errorf("history -l:\n%s", stdout.String())
	}
	stdout.Reset()
	code := gateMain(ctx, []string{"--kubeconfig", kubeconfig, "-l", cbv1.ExperimentLabel + "=nightly-writes"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "REGRESSED nightly-writes: nightly-012 regressed against 12 runs before it\n  ops/s -11.2%") || !strings.Contains(stdout.String(), "newest run") {
		t.Errorf("gate -l: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}
