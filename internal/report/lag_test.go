package report_test

import (
	"bytes"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// The replication lag a run kept reads the same printed alone (beside JSON) and in the run's
// table: counts, percentiles, the bound, and what censored keys say about the datacenter.
func TestReplicationLagIsPrintedWithItsBound(t *testing.T) {
	lag := &cbv1.ReplicationLagResults{ObservedDatacenter: "dc2", SampleShare: "0.05", LimitMillis: 3000,
		Seen: 5, Censored: 2, Dropped: 1, ReadErrors: 3,
		Lag:         &cbv1.Latency{P50: 1500, P90: 2500, P99: 40_000, Max: 40_000, RelativeAccuracy: "0.01"},
		BoundMicros: 10_700, ClockErrorMicros: 700}
	want := []string{"replication lag to dc2", "0.05 of the inserts", "5 seen, 2 censored (not seen within 3s), 1 dropped",
		"p50 1.50ms", "max 40.0ms", "up to 10.7ms above", "700us below", "2 of 7 keys were not readable in dc2 within 3s"}
	var alone bytes.Buffer
	if err := report.LagText(&alone, lag); err != nil {
		t.Fatal(err)
	}
	run := builders.MakeBenchmarkRun("lag", "ns").Obj()
	run.Status.Results = &cbv1.Results{WritersReported: 1, ReplicationLag: lag}
	var table bytes.Buffer
	if err := report.Run(&table, run, report.Table); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"alone": alone.String(), "table": table.String()} {
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: lacks %q:\n%s", name, w, out)
			}
		}
	}
	// Under the clocks' error a figure is at most itself plus that error, never a bare 0us.
	var small bytes.Buffer
	lag.Lag = &cbv1.Latency{P50: 0, P90: 0, P99: 300, Max: 2000, RelativeAccuracy: "0.01"}
	if err := report.LagText(&small, lag); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(small.String(), "p50 ≤700us  p90 ≤700us  p99 ≤1.00ms  max 2.00ms") {
		t.Errorf("figures under the clock error of 700us:\n%s", small.String())
	}
	var none bytes.Buffer
	if err := report.LagText(&none, &cbv1.ReplicationLagResults{ObservedDatacenter: "dc2", LimitMillis: 1000, Censored: 4}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(none.String(), "p50") || !strings.Contains(none.String(), "4 of 4 keys were not readable") {
		t.Errorf("no key seen: want no percentiles and the censored keys named:\n%s", none.String())
	}
}
