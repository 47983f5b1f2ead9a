package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// rawReports checks that `results --reports` reads every writer's raw report back from the
// ConfigMaps the run owns, that `-o json` carries them, and that a file it wrote gives them
// back with no cluster.
func rawReports(t *testing.T, env *kube.Env, kubeconfig, ns string) {
	ctx := context.Background()
	run := reporttest.Run(ns)
	run.Name = "raw-reports"
	want := []cbv1.WriterReport{
		{Index: 0, Pod: "raw-reports-writer-0-abcde", PodUID: "u0", Reason: "Completed", Summary: `{"v":1,"i":0}`},
		{Index: 1, Pod: "raw-reports-writer-1-abcde", PodUID: "u1", ExitCode: 1, Reason: "Error", Summary: `{"v":1,"i":1,"error":"x"}`},
		{Index: 250, Pod: "raw-reports-writer-250-abcde", PodUID: "u250", Reason: "Completed", Summary: `{"v":1,"i":250}`},
	}
	for _, r := range want {
		run.Status.WriterReports = append(run.Status.WriterReports, reportstore.Compact(r, reportstore.Name(run.Name, r.Index)))
	}
	// A row whose report is not stored (its ConfigMap deleted by hand) is named, not dropped.
	lost := cbv1.WriterReport{Index: 2, Pod: "raw-reports-writer-2-abcde", Reason: "Completed", ConfigMap: "raw-reports-reports-0"}
	run.Status.WriterReports = append(run.Status.WriterReports, lost)
	createWithStatus(t, env.Client, run)
	for _, cm := range reportstore.ConfigMaps(run, want) {
		if err := env.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	wantLines := func(t *testing.T, out []byte) {
		t.Helper()
		got := map[int32]cbv1.WriterReport{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r cbv1.WriterReport
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			got[r.Index] = r
		}
		wantByIndex := map[int32]string{0: want[0].Summary, 1: want[1].Summary, 2: "", 250: want[2].Summary}
		gotByIndex := map[int32]string{}
		for i, r := range got {
			gotByIndex[i] = r.Summary
		}
		if diff := cmp.Diff(wantByIndex, gotByIndex); diff != "" {
			t.Errorf("raw summaries by writer (-want +got):\n%s", diff)
		}
	}
	run1 := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := resultsMain(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("results %v: exit code %d: %s", args, code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, errOut := run1("raw-reports", "--reports")
	wantLines(t, []byte(out))
	if !strings.Contains(errOut, "writer 2 (pod raw-reports-writer-2-abcde): no summary stored") {
		t.Errorf("the writer without a stored summary is not named: %q", errOut)
	}
	doc, _ := run1("raw-reports", "-o", "json")
	file := filepath.Join(t.TempDir(), "raw.json")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ = run1("-f", file, "--reports")
	// The file keeps the reports that have a summary; the lost one has none to keep.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("the file gave back %d reports, want %d:\n%s", len(lines), len(want), out)
	}
	for i, l := range lines {
		var r cbv1.WriterReport
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Summary != want[i].Summary || r.Index != want[i].Index {
			t.Errorf("report %d from the file: %+v, want the summary of writer %d", i, r, want[i].Index)
		}
	}
}
