package report

import (
	"fmt"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
)

// A run across several datacenters keeps each datacenter's writers merged apart
// (status.results.datacenters): one row each, beside the merged figures above them.

// datacenterLatency is the figures a datacenter's row shows: its writes', or its reads' when
// it only read.
func datacenterLatency(d cbv1.DatacenterResults) (string, *cbv1.Latency) {
	switch {
	case d.Writes != nil:
		return "writes", &d.Writes.Response
	case d.Reads != nil:
		return "reads", &d.Reads.Response
	}
	return "", nil
}

// errorTotal is every failed operation (or attempt) of the counts, whatever its kind.
func errorTotal(e cbv1.ErrorCounts) int64 {
	return e.WriteTimeout + e.ReadTimeout + e.Unavailable + e.Overloaded + e.ClientTimeout + e.Other
}

// datacenterCells are a datacenter's row: name, writers, operations, ops/s, what the
// latency is of, p50, p99, p99.9, errors and timeouts per operation.
func datacenterCells(d cbv1.DatacenterResults) []string {
	cells := []string{d.Name, fmt.Sprint(d.WritersReported), numfmt.Count(d.Operations), numfmt.Count(d.OpsPerSecond), "-", "-", "-", "-",
		numfmt.Count(errorTotal(d.Errors)), orDash(d.TimeoutsPerOperation)}
	if of, l := datacenterLatency(d); l != nil {
		cells[4], cells[5], cells[6], cells[7] = of, bound(*l, "p50", l.P50), bound(*l, "p99", l.P99), bound(*l, "p999", l.P999)
	}
	return cells
}

var datacenterHead = []string{"datacenter", "writers", "operations", "ops/s", "latency of", "p50", "p99", "p99.9", "errors", "timeouts/op"}

// datacenterLines prints the per-datacenter rows in the run's text.
func datacenterLines(w *errWriter, dcs []cbv1.DatacenterResults) {
	if len(dcs) == 0 {
		return
	}
	w.printf("by datacenter (each datacenter's writers merged apart; response latency):\n")
	tw := w.table(0)
	row := func(cells []string) {
		for _, c := range cells {
			tw.row("%s\t", c)
		}
		tw.row("\n")
	}
	row(datacenterHead)
	for _, d := range dcs {
		row(datacenterCells(d))
	}
	tw.flush()
}

// datacenterTable is the same on the page.
func datacenterTable(dcs []cbv1.DatacenterResults) (htmlTable, bool) {
	t := htmlTable{ID: "datacenters", Caption: "By datacenter", Head: datacenterHead}
	if len(dcs) == 0 {
		return t, false
	}
	for _, d := range dcs {
		class := ""
		if errorTotal(d.Errors) > 0 {
			class = "nonzero"
		}
		t.add(class, datacenterCells(d)...)
	}
	t.Notes = append(t.Notes, "Each datacenter's writers merged apart, talking to it as their local datacenter; response latency, from the intended start in an open loop.")
	return t, true
}
