package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/report/reporttest"
)

// kubectlPlugin builds this command as kubectl-cassbench, as hack/build.sh links it, and
// has the real kubectl run it as a plugin against the test's apiserver: `kubectl cassbench
// results NAME` must print what `cassbench results NAME` prints, and say "kubectl cassbench"
// where it names itself.
func kubectlPlugin(t *testing.T, kubeconfig, namespace string) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH: install it to test the plugin (%v)", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "kubectl-cassbench"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-cassbench: %v\n%s", err, out)
	}
	// kubectl finds plugins on PATH; the plugin finds the cluster through KUBECONFIG as
	// kubectl does. A plugin sees none of kubectl's own flags.
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig)
	run := func(args ...string) (stdout, stderr string, code int) {
		cmd := exec.CommandContext(ctx, kubectl, args...)
		cmd.Env = env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
		}
		return o.String(), e.String(), code
	}
	for name, args := range map[string][]string{"run table": {"ip-by-city-8"}, "sweep json": {"writers-by-key", "-o", "json"}} {
		var want, wantErr bytes.Buffer
		if code := resultsMain(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), &want, &wantErr); code != 0 {
			t.Fatalf("%s: cassbench results exited %d: %s", name, code, wantErr.String())
		}
		got, stderr, code := run(append([]string{"cassbench", "results"}, args...)...)
		if code != 0 {
			t.Fatalf("%s: kubectl cassbench results exited %d: %s", name, code, stderr)
		}
		if got != want.String() {
			t.Errorf("%s: kubectl cassbench results printed\n%s\nwhere cassbench results printed\n%s", name, got, want.String())
		}
	}
	got, _, _ := run("cassbench", "results", "ip-by-city-8")
	reporttest.Golden(t, filepath.Join(goldenDir, "run.txt"), []byte(got))

	_, stderr, code := run("cassbench", "results", "nope")
	if want := "kubectl cassbench results: no BenchmarkRun or BenchmarkSweep named nope in namespace " + namespace; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("kubectl cassbench results nope: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	help, _, code := run("cassbench", "help")
	if code != 0 || !strings.Contains(help, "  kubectl cassbench results NAME ") || strings.Contains(help, "\n  cassbench ") {
		t.Errorf("kubectl cassbench help: exit %d, usage naming the command otherwise:\n%s", code, help)
	}
	list, _, _ := run("plugin", "list")
	if !strings.Contains(list, filepath.Join(dir, "kubectl-cassbench")) {
		t.Errorf("kubectl plugin list does not find the plugin:\n%s", list)
	}
}
