package report_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

// The figures of workload.operations show in the table and in the CSV, a row per kind.
func TestKindsRender(t *testing.T) {
	run := reporttest.Run("ns")
	run.Status.Results.OperationsByKind = []cbv1.KindResults{
		{Kind: cbv1.OperationInsertIfNotExists, Operations: 7000, OpsPerSecond: 12, Failed: 3, Applied: 6000, NotApplied: 1000,
			Response: cbv1.Latency{P50: 4100, P90: 5200, P99: 9800, P999: 15000, Max: 31000, Mean: 4300, RelativeAccuracy: "0.01"}},
		{Kind: cbv1.OperationScanPartition, Operations: 32, OpsPerSecond: 1, Rows: 3_200_000, Pages: 640, Misses: 2,
			Response: cbv1.Latency{P50: 2_100_000, P99: 9_900_000, Max: 12_000_000, RelativeAccuracy: "0.01", UpperBounds: []string{"p50"}}},
	}
	var table bytes.Buffer
	if err := report.Run(&table, run, report.Table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"insertIfNotExists response     7003", "scanPartition response",
		"insertIfNotExists: 6000 applied, 1000 not applied",
		"scanPartition: 3200000 rows in 640 pages, 2 scans found nothing",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}

	var out bytes.Buffer
	if err := report.Run(&out, run, report.CSV); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range records[0] {
		col[c] = i
	}
	byScope := map[string][]string{}
	for _, r := range records[1:] {
		byScope[r[0]] = r
	}
	lwt, scan := byScope["insertIfNotExists"], byScope["scanPartition"]
	if lwt == nil || scan == nil {
		t.Fatalf("no row per kind: %v", records)
	}
	for _, c := range []struct {
		row       []string
		col, want string
	}{
		{lwt, "operations", "7000"}, {lwt, "errors", "3"}, {lwt, "applied", "6000"}, {lwt, "notApplied", "1000"}, {lwt, "p99", "9800"},
		{lwt, "pages", ""}, {scan, "rows", "3200000"}, {scan, "pages", "640"}, {scan, "misses", "2"}, {scan, "upperBounds", "p50"},
	} {
		if got := c.row[col[c.col]]; got != c.want {
			t.Errorf("%s %s = %q, want %q", c.row[0], c.col, got, c.want)
		}
	}
}
