package report

import (
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A run across two datacenters shows each one's writers apart, in its text and on its page:
// operations, rate, latency with the sketch's bounds, errors and timeouts per operation; a
// datacenter whose writers only read shows its reads' latency, and one with errors stands out.
func TestEachDatacentersResultsAreShown(t *testing.T) {
	run := &cbv1.BenchmarkRun{}
	run.Name = "two-dcs"
	run.Spec.Writers.Replicas = 3
	run.Status.Results = &cbv1.Results{WritersReported: 3, Operations: 90_000, OpsPerSecond: 1500,
		Datacenters: []cbv1.DatacenterResults{
			{Name: "dc1", WritersReported: 2, Operations: 60_000, OpsPerSecond: 1000,
				Writes: &cbv1.OperationResults{Response: cbv1.Latency{P50: 800, P99: 4200, P999: 9100, RelativeAccuracy: "0.01"}},
				Errors: cbv1.ErrorCounts{WriteTimeout: 3, Unavailable: 1}, TimeoutsPerOperation: "0.00005"},
			{Name: "dc2", WritersReported: 1, Operations: 30_000, OpsPerSecond: 500,
				Reads: &cbv1.OperationResults{Response: cbv1.Latency{P50: 600, P99: 2500, P999: 3000, RelativeAccuracy: "0.01"}}},
		}}
	var text strings.Builder
	w := &errWriter{w: &text}
	datacenterLines(w, run.Status.Results.Datacenters)
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a heading, a header and a row per datacenter, got:\n%s", text.String())
	}
	for i, want := range [][]string{
		{"datacenter", "writers", "latency of", "timeouts/op"},
		{"dc1", "2", "60,000", "1,000", "writes", "800us", "4.20ms", "9.10ms", "4", "0.00005"},
		{"dc2", "1", "30,000", "500", "reads", "600us", "2.50ms", "3.00ms", "0", "-"},
	} {
		if got := strings.Fields(lines[i+1]); !containsAll(got, want) {
			t.Errorf("line %d = %q, want the fields %q", i+1, lines[i+1], want)
		}
	}
	var page strings.Builder
	if err := HTML(&page, "dcs", []*cbv1.BenchmarkRun{run}, nil, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"By datacenter", "<td>dc1</td>", "<td>dc2</td>", `class="nonzero"`, "<td>0.00005</td>", "<td>reads</td>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	var none strings.Builder
	datacenterLines(&errWriter{w: &none}, nil)
	if _, ok := datacenterTable(nil); ok || none.Len() > 0 {
		t.Error("a run of one datacenter shows a per-datacenter table")
	}
}

func containsAll(fields, want []string) bool {
	have := map[string]bool{}
	for _, f := range fields {
		have[f] = true
	}
	for _, w := range want {
		for _, part := range strings.Fields(w) {
			if !have[part] {
				return false
			}
		}
	}
	return true
}
