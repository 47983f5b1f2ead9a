package main

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/summary"
)

// A local run is rendered by the same code as `cassbench results`, from summaries that went
// through the termination message's encoding.
func TestLocalRunTable(t *testing.T) {
	start := time.UnixMilli(1700000000000)
	r := &cbv1.Results{
		WindowStart: metav1.NewTime(start), WindowEnd: metav1.NewTime(start.Add(10 * time.Second)), WindowMillis: 10000,
		WritersReported: 2, Operations: 120000, OpsPerSecond: 12000,
		Writes: &cbv1.OperationResults{Operations: 100000, OpsPerSecond: 10000,
			Response: cbv1.Latency{P50: 800, P90: 1500, P99: 12500, P999: 40000, Max: 11_000_000, Mean: 950, RelativeAccuracy: "0.01"},
			Service:  cbv1.Latency{P50: 700, P90: 1400, P99: 9000, P999: 30000, Max: 900_000, Mean: 900, RelativeAccuracy: "0.01"}},
		Reads:                &cbv1.OperationResults{Operations: 20000, OpsPerSecond: 2000},
		Errors:               cbv1.ErrorCounts{WriteTimeout: 3, Unavailable: 1},
		TimeoutsPerOperation: "0.000025", TimeoutsPerAttempt: "0.0001", Retries: 7, Bytes: 10 << 20,
		PerWriter: []cbv1.WriterResult{{Index: 0, Operations: 60000, OpsPerSecond: 6000, Outcome: "Succeeded"}, {Index: 1, Operations: 60000, OpsPerSecond: 6000, Outcome: "Succeeded"}},
	}
	spec := cbv1.BenchmarkRunSpec{Writers: cbv1.WritersSpec{Replicas: 2}}
	var out bytes.Buffer
	if err := report.Run(&out, localRun("local-x", &spec, &summary.SetupReport{CassandraVersion: "5.0.9", Nodes: 3}, r, ""), report.Table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"BenchmarkRun local-x: Succeeded, datacenter local with 3 nodes, Cassandra 5.0.9",
		"120000 operations, 12000 ops/s achieved",
		"writes response", "writes service", "reads response",
		"800us", "1.50ms", "12.5ms", "11.0s", "±1%",
		"write timeout 3, read timeout 0, unavailable 1",
		"timeouts per operation 0.000025, per attempt 0.0001",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if s := reported(&summary.Summary{Index: 1, Writers: 2, Error: strings.Repeat("x", 9000)}); len(s.Error) > 256 {
		t.Errorf("a local summary did not go through the report's encoding: error of %d bytes kept", len(s.Error))
	}
}

// A local run whose writers failed says which and why in what it writes, as the controller's
// condition does: with -o json, a script reading the output has the reason without stderr.
func TestLocalRunSaysWhyWritersFailed(t *testing.T) {
	sums := []*summary.Summary{{Index: 0, Writers: 3}, {Index: 1, Writers: 3, Error: "start barrier: saw 2 of 3 writers, and none more for 2m0s"}, {Index: 2, Writers: 3, Error: "connecting: refused"}}
	failure := writerFailures(sums)
	want := "writer 1: start barrier: saw 2 of 3 writers, and none more for 2m0s; writer 2: connecting: refused; results of the 1 writers that reported are kept"
	if failure != want {
		t.Fatalf("writerFailures = %q, want %q", failure, want)
	}
	if got := writerFailures(sums[:1]); got != "" {
		t.Errorf("writerFailures of a writer that succeeded = %q", got)
	}
	spec := cbv1.BenchmarkRunSpec{Writers: cbv1.WritersSpec{Replicas: 3}}
	for _, format := range []report.Format{report.JSON, report.Table} {
		var out bytes.Buffer
		if err := report.Run(&out, localRun("local-x", &spec, &summary.SetupReport{Nodes: 1}, &cbv1.Results{WritersReported: 1}, failure), format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "Failed") || !strings.Contains(out.String(), "writer 2: connecting: refused") {
			t.Errorf("%s output lacks the failure:\n%s", format, out.String())
		}
		if format != report.JSON {
			continue
		}
		obj, err := report.Read(&out)
		if err != nil {
			t.Fatal(err)
		}
		if c := meta.FindStatusCondition(obj.(*cbv1.BenchmarkRun).Status.Conditions, cbv1.ConditionSucceeded); c == nil || c.Message != want {
			t.Errorf("read back, the Succeeded condition is %+v", c)
		}
	}
}

// The writers of one process give up at the barrier for the first of them that failed before
// its window; one that failed after measuring, or succeeded, stops nobody.
func TestFirstEarlyFailure(t *testing.T) {
	var f firstEarlyFailure
	f.note(0, &summary.Summary{Start: 10, End: 20}, errors.New("timed out in the window"))
	f.note(1, &summary.Summary{}, nil)
	if err := f.get(); err != nil {
		t.Fatalf("gave up for a writer that measured or succeeded: %v", err)
	}
	refused := errors.New("connecting: refused")
	f.note(2, &summary.Summary{Error: refused.Error()}, refused)
	f.note(3, &summary.Summary{}, errors.New("later"))
	err := f.get()
	if err == nil || err.Error() != "writer 2 failed before the start: connecting: refused" || !errors.Is(err, refused) {
		t.Errorf("get() = %v, want writer 2's failure, wrapped", err)
	}
}

// Results of `cassbench run -f` carry the manifest's name and labels; a file holding only a
// spec, or none, gives none and the run keeps its generated name.
func TestManifestName(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"run.yaml":  "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkRun\nmetadata:\n  name: lcs-vs-stcs\n  labels: {cassbench.io/experiment: compaction}\nspec:\n  writers: {replicas: 1}\n",
		"spec.yaml": "datacenterRef: {name: dc1}\nwriters: {replicas: 1}\n",
		"bad.yaml":  "metadata: [\n",
	}
	want := map[string]string{"run.yaml": "lcs-vs-stcs", "spec.yaml": "", "bad.yaml": "", "missing.yaml": ""}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, w := range want {
		got, labels := manifestMeta(filepath.Join(dir, name))
		if got != w {
			t.Errorf("manifestMeta(%s) = %q, want %q", name, got, w)
		}
		if want := map[string]string{"cassbench.io/experiment": "compaction"}; name == "run.yaml" && !maps.Equal(labels, want) {
			t.Errorf("manifestMeta(%s) labels %v, want %v", name, labels, want)
		}
	}
}
