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
	"attempts", "bytes", "clientTimeout", "errors", "max", "mean", "missRatio", "missed", "operations", "opsPerSecond", "other", "outcome",
	"overloaded", "p50", "p90", "p99", "p999", "readTimeout", "relativeAccuracy", "retries", "targetOpsPerSecond",
	"timeoutsPerAttempt", "timeoutsPerOperation", "unavailable", "upperBounds", "writeTimeout",
	// The figures of workload.operations came later: they follow, so that earlier files keep
	// their columns where they were.
	"applied", "misses", "notApplied", "pages", "rows"}

var sweepFigures = []string{"errors", "failed", "message", "opsPerSecond", "opsPerSecondMax", "opsPerSecondMin",
	"outcome", "p50", "p99", "p999", "p99Max", "p99Min", "runs", "succeeded", "timeoutRatio"}

// runCSV writes one row for the whole run, one per operation kind and latency measure
// (writes, writes-service, writes-failed, reads, ..., lag), one per kind of
// workload.operations (update, scanPartition, ...: response latency, rows and pages of scans,
// applied and not applied lightweight transactions), one per failed-attempt count
// (attempts), one per writer (writer-0, ...) and one per timeline point (t+OFFSETms).
func runCSV(w io.Writer, run *cbv1.BenchmarkRun) error {
	rows := []map[string]string{}
	if r := run.Status.Results; r != nil {
		e := r.Errors
		rows = append(rows, map[string]string{
			"scope": "total", "outcome": string(run.Status.Phase),
			"operations": itoa(r.Operations), "opsPerSecond": itoa(r.OpsPerSecond),
			"errors":       itoa(errorTotal(e)),
			"writeTimeout": itoa(e.WriteTimeout), "readTimeout": itoa(e.ReadTimeout), "unavailable": itoa(e.Unavailable),
			"overloaded": itoa(e.Overloaded), "clientTimeout": itoa(e.ClientTimeout), "other": itoa(e.Other),
			"timeoutsPerOperation": r.TimeoutsPerOperation, "timeoutsPerAttempt": r.TimeoutsPerAttempt,
			"attempts": itoa(r.Attempts), "retries": itoa(r.Retries), "bytes": itoa(r.Bytes),
		})
		a := r.AttemptErrors
		rows = append(rows, map[string]string{
			"scope": "attempts", "operations": itoa(r.Attempts),
			"errors":       itoa(errorTotal(a)),
			"writeTimeout": itoa(a.WriteTimeout), "readTimeout": itoa(a.ReadTimeout), "unavailable": itoa(a.Unavailable),
			"overloaded": itoa(a.Overloaded), "clientTimeout": itoa(a.ClientTimeout), "other": itoa(a.Other),
		})
		if sc := r.Schedule; sc != nil {
			row := latencyCells(sc.Lag)
			row["scope"], row["targetOpsPerSecond"], row["missed"], row["operations"] = "lag", itoa(sc.TargetOpsPerSecond), itoa(sc.Missed), itoa(sc.Due-sc.Missed)
			rows = append(rows, row)
		}
		for _, kind := range []struct {
			name string
			ops  *cbv1.OperationResults
		}{{"writes", r.Writes}, {"reads", r.Reads}} {
			if kind.ops == nil {
				continue
			}
			measures := []struct {
				suffix string
				l      cbv1.Latency
			}{{"", kind.ops.Response}, {"-service", kind.ops.Service}}
			if kind.ops.Failure != nil {
				measures = append(measures, struct {
					suffix string
					l      cbv1.Latency
				}{"-failed", *kind.ops.Failure})
			}
			for _, measure := range measures {
				row := latencyCells(measure.l)
				row["scope"], row["operations"], row["opsPerSecond"], row["errors"] = kind.name+measure.suffix,
					itoa(kind.ops.Operations), itoa(kind.ops.OpsPerSecond), itoa(kind.ops.Failed)
				row["missRatio"] = kind.ops.MissRatio
				rows = append(rows, row)
			}
		}
		for _, k := range r.OperationsByKind {
			row := latencyCells(k.Response)
			row["scope"], row["operations"], row["opsPerSecond"], row["errors"] = string(k.Kind), itoa(k.Operations), itoa(k.OpsPerSecond), itoa(k.Failed)
			if k.Kind == cbv1.OperationScanPartition || k.Kind == cbv1.OperationScanTokenRange {
				row["rows"], row["pages"], row["misses"] = itoa(k.Rows), itoa(k.Pages), itoa(k.Misses)
			}
			if k.Kind == cbv1.OperationInsertIfNotExists {
				row["applied"], row["notApplied"] = itoa(k.Applied), itoa(k.NotApplied)
			}
			rows = append(rows, row)
		}
		for _, wr := range r.PerWriter {
			rows = append(rows, map[string]string{
				"scope": fmt.Sprintf("writer-%d", wr.Index), "outcome": wr.Outcome,
				"operations": itoa(wr.Operations), "opsPerSecond": itoa(wr.OpsPerSecond),
				"errors": itoa(wr.Errors), "p99": itoa(wr.P99Micros),
			})
		}
	}
	if r := run.Status.Results; r != nil && r.Timeline != nil {
		for _, p := range r.Timeline.Points {
			rows = append(rows, map[string]string{"scope": fmt.Sprintf("t+%dms", p.OffsetMillis),
				"operations": itoa(p.Operations), "opsPerSecond": itoa(p.OpsPerSecond), "errors": itoa(p.Errors), "p99": itoa(p.P99Micros)})
		}
	}
	return writeCSV(w, runColumns, rows)
}

func latencyCells(l cbv1.Latency) map[string]string {
	return map[string]string{"p50": itoa(l.P50), "p90": itoa(l.P90), "p99": itoa(l.P99), "p999": itoa(l.P999),
		"max": itoa(l.Max), "mean": itoa(l.Mean), "relativeAccuracy": l.RelativeAccuracy, "upperBounds": strings.Join(l.UpperBounds, " ")}
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
