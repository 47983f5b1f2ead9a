package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// CSV columns: the columns that identify a row come first; the figures follow in the sorted
// order of their JSON names, the same order the JSON output has. The set is fixed, so files from
// different runs line up; a figure a row does not have is left empty. Latencies are in
// microseconds.

var runColumns = []string{"scope",
	"bytes", "clientTimeout", "errors", "max", "mean", "operations", "opsPerSecond", "other", "outcome",
	"overloaded", "p50", "p90", "p99", "p999", "readTimeout", "retries", "timeoutRatio", "unavailable", "writeTimeout"}

var sweepFigures = []string{"errors", "failed", "message", "opsPerSecond", "opsPerSecondMax", "opsPerSecondMin",
	"outcome", "p50", "p99", "p999", "p99Max", "p99Min", "runs", "succeeded", "timeoutRatio"}

// runCSV writes one row for the whole run, one per operation kind and latency measure
// (writes, writes-service, reads, reads-service), and one per writer (writer-0, ...).
func runCSV(w io.Writer, run *cbv1.BenchmarkRun) error {
	rows := []map[string]string{}
	if r := run.Status.Results; r != nil {
		e := r.Errors
		rows = append(rows, map[string]string{
			"scope": "total", "outcome": string(run.Status.Phase),
			"operations": itoa(r.Operations), "opsPerSecond": itoa(r.OpsPerSecond),
			"errors":       itoa(e.WriteTimeout + e.ReadTimeout + e.Unavailable + e.Overloaded + e.ClientTimeout + e.Other),
			"writeTimeout": itoa(e.WriteTimeout), "readTimeout": itoa(e.ReadTimeout), "unavailable": itoa(e.Unavailable),
			"overloaded": itoa(e.Overloaded), "clientTimeout": itoa(e.ClientTimeout), "other": itoa(e.Other),
			"timeoutRatio": r.TimeoutRatio, "retries": itoa(r.Retries), "bytes": itoa(r.Bytes),
		})
		for _, kind := range []struct {
			name string
			ops  *cbv1.OperationResults
		}{{"writes", r.Writes}, {"reads", r.Reads}} {
			if kind.ops == nil {
				continue
			}
			for _, measure := range []struct {
				suffix string
				l      cbv1.Latency
			}{{"", kind.ops.Response}, {"-service", kind.ops.Service}} {
				l := measure.l
				rows = append(rows, map[string]string{
					"scope": kind.name + measure.suffix, "operations": itoa(kind.ops.Operations), "opsPerSecond": itoa(kind.ops.OpsPerSecond),
					"p50": itoa(l.P50), "p90": itoa(l.P90), "p99": itoa(l.P99), "p999": itoa(l.P999), "max": itoa(l.Max), "mean": itoa(l.Mean),
				})
			}
		}
		for _, wr := range r.PerWriter {
			rows = append(rows, map[string]string{
				"scope": fmt.Sprintf("writer-%d", wr.Index), "outcome": wr.Outcome,
				"operations": itoa(wr.Operations), "opsPerSecond": itoa(wr.OpsPerSecond),
				"errors": itoa(wr.Errors), "p99": itoa(wr.P99Micros),
			})
		}
	}
	return writeCSV(w, runColumns, rows)
}

// sweepCSV writes one row per point: its index, the axes' values (a column per axis, named by
// its path) and its figures.
func sweepCSV(w io.Writer, sw *cbv1.BenchmarkSweep) error {
	columns := append([]string{"point"}, axisPaths(sw)...)
	columns = append(columns, sweepFigures...)
	rows := make([]map[string]string, 0, len(sw.Status.Table))
	for _, p := range sw.Status.Table {
		row := map[string]string{
			"point": itoa(int64(p.Point)), "outcome": string(p.Outcome), "message": p.Message,
			"runs":      strings.Join(p.Runs, " "),
			"succeeded": itoa(int64(p.Succeeded)), "failed": itoa(int64(p.Failed)),
		}
		// A point with no succeeded run has no figures: empty, not zero.
		if p.Succeeded > 0 {
			for k, v := range map[string]string{
				"opsPerSecond": itoa(p.OpsPerSecond), "opsPerSecondMin": itoa(p.OpsPerSecondMin), "opsPerSecondMax": itoa(p.OpsPerSecondMax),
				"p50": itoa(p.P50), "p99": itoa(p.P99), "p999": itoa(p.P999), "p99Min": itoa(p.P99Min), "p99Max": itoa(p.P99Max),
				"timeoutRatio": p.TimeoutRatio, "errors": itoa(p.Errors),
			} {
				row[k] = v
			}
		}
		for i, a := range sw.Spec.Axes {
			if i < len(p.Values) {
				row[a.Path] = p.Values[i]
			}
		}
		rows = append(rows, row)
	}
	return writeCSV(w, columns, rows)
}

func writeCSV(w io.Writer, columns []string, rows []map[string]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(columns); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	record := make([]string, len(columns))
	for _, row := range rows {
		for i, c := range columns {
			record[i] = row[c]
		}
		if err := cw.Write(record); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
