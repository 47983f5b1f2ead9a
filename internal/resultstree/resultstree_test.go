package resultstree

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/history"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

// result is a succeeded run that measured on day (days after 2026-11-01) at ops/s and p99.
func result(name string, day int, ops, p99 int64) *cbv1.BenchmarkRun {
	run := reporttest.Run("ns")
	run.Name = name
	r := run.Status.Results
	r.WindowStart = metav1.NewTime(time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(day) * 24 * time.Hour))
	r.OpsPerSecond = ops
	r.Writes.Response.P99 = p99
	return run
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func resultsFile(t *testing.T, run *cbv1.BenchmarkRun) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Run(&b, run, report.JSON); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=cassbench", "-c", "user.email=test@cassbench.io"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A GitOps repository: results files beside their specs, in two commits and one not yet
// committed, with files that are no run's results among them.
func TestLoadDirReadsAGitRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIPPED: no git on PATH")
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	labelled := result("writes-2026-a", 1, 10000, 3000)
	labelled.Labels = map[string]string{cbv1.ExperimentLabel: "writes"}
	writeFile(t, filepath.Join(repo, "experiments/results/writes-1.json"), resultsFile(t, result("writes-1", 2, 10100, 3000)))
	writeFile(t, filepath.Join(repo, "experiments/results/a.json"), resultsFile(t, labelled))
	writeFile(t, filepath.Join(repo, "experiments/writes-1.yaml"), []byte("kind: BenchmarkRun\n"))
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "first")
	first := git(t, repo, "rev-parse", "HEAD")

	failed := result("writes-3", 4, 1, 1)
	failed.Status.Phase = cbv1.PhaseFailed
	writeFile(t, filepath.Join(repo, "experiments/results/writes-2.json"), resultsFile(t, result("writes-2", 3, 9900, 3100)))
	writeFile(t, filepath.Join(repo, "experiments/results/writes-3.json"), resultsFile(t, failed))
	var sweep bytes.Buffer
	if err := report.Sweep(&sweep, reporttest.Sweep("ns"), report.JSON); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "experiments/results/sweep.json"), sweep.Bytes())
	writeFile(t, filepath.Join(repo, "dashboards/grafana.json"), []byte(`{"panels": []}`))
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "second")
	second := git(t, repo, "rev-parse", "HEAD")

	writeFile(t, filepath.Join(repo, "experiments/results/writes-4.json"), resultsFile(t, result("writes-4", 5, 9800, 3000)))
	writeFile(t, filepath.Join(repo, ".cache/writes-9.json"), resultsFile(t, result("writes-9", 9, 1, 1)))

	got, err := Load(filepath.Join(repo, "experiments"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, s := range history.Group(got.Runs) {
		for _, r := range s.Runs {
			runs = append(runs, s.Experiment+" "+r.Name+" "+r.Source+" "+r.Commit)
		}
	}
	want := []string{
		"writes writes-2026-a results/a.json " + first,
		"writes writes-1 results/writes-1.json " + first,
		"writes writes-2 results/writes-2.json " + second,
		"writes writes-4 results/writes-4.json ",
	}
	if diff := cmp.Diff(want, runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	sort.Strings(got.Skipped)
	wantSkipped := []string{"results/sweep.json: a BenchmarkSweep's table", "results/writes-3.json: run writes-3 did not succeed (Failed)"}
	if len(got.Skipped) != len(wantSkipped) {
		t.Fatalf("skipped %q", got.Skipped)
	}
	for i, w := range wantSkipped {
		if !strings.HasPrefix(got.Skipped[i], w) {
			t.Errorf("skipped %q, want it to start %q", got.Skipped[i], w)
		}
	}

	// The whole repository: the dashboard is no results file, the hidden directory is not read.
	got, err = Load(repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 4 || len(got.Skipped) != 3 || !strings.HasPrefix(got.Skipped[0], "dashboards/grafana.json: results file has kind") {
		t.Errorf("runs %d, skipped %q", len(got.Runs), got.Skipped)
	}
}

func TestLoadDirRefusesWhatIsNoDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.json")
	writeFile(t, file, resultsFile(t, result("a-1", 1, 1, 1)))
	for path, want := range map[string]string{file: "is not a directory", filepath.Join(dir, "none"): "no such file"} {
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): %v, want an error saying %q", path, err, want)
		}
	}
	// Outside git, no commits and no error.
	got, err := Load(dir)
	if err != nil || len(got.Runs) != 1 || got.Runs[0].Commit != "" {
		t.Errorf("%+v, %v", got, err)
	}
}
