package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
	"github.com/cassbench/cassbench/internal/sweep"
)

// htmlTable is a table of the page. Tables longer than collapseAfter rows fold behind their
// Summary line, which says what a reader would look for in them.
type htmlTable struct {
	ID, Caption, Summary string
	Head                 []string
	Rows                 []htmlRow
	Notes                []string
	Collapse             bool
	// ColClass styles columns by index: "text" aligns words left, "names" wraps between
	// object names (never at their hyphens), "nowrap" keeps a range or a mark on one line.
	ColClass map[int]string
}

type htmlRow struct {
	Class string
	Cells []string
}

// CellClass is the class of column i's cells.
func (t htmlTable) CellClass(i int) string { return t.ColClass[i] }

const collapseAfter = 10

func (t *htmlTable) add(class string, cells ...string) {
	t.Rows = append(t.Rows, htmlRow{Class: class, Cells: cells})
	t.Collapse = len(t.Rows) > collapseAfter
}

// msCell renders microseconds as milliseconds for a column headed "(ms)": one unit per
// column, so that a column is read by its digits, with three significant figures or more.
func msCell(v int64) string {
	f := float64(v) / 1000
	switch {
	case f < 10:
		return strconv.FormatFloat(f, 'f', 2, 64)
	case f < 100:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return numfmt.Count(int64(f + 0.5))
}

func boundMs(l cbv1.Latency, name string, v int64) string {
	if slices.Contains(l.UpperBounds, name) {
		return "<" + msCell(v)
	}
	return msCell(v)
}

// latencyTable is the run's latencies per kind of operation with their accuracy.
func latencyTable(r *cbv1.Results) htmlTable {
	t := htmlTable{ID: "latency", Caption: "Latency by operation",
		Head: []string{"", "operations", "ops/s", "p50 (ms)", "p90 (ms)", "p99 (ms)", "p99.9 (ms)", "max (ms)", "mean (ms)", "accuracy"}}
	row := func(name string, ops, perSecond int64, l cbv1.Latency) {
		t.add("", name, numfmt.Count(ops), numfmt.Count(perSecond), boundMs(l, "p50", l.P50), boundMs(l, "p90", l.P90),
			boundMs(l, "p99", l.P99), boundMs(l, "p999", l.P999), msCell(l.Max), msCell(l.Mean), Accuracy(l))
	}
	eachLatency(r, row)
	t.Notes = append(t.Notes, "response: from when the operation was due (coordinated omission corrected); service: from when it was sent.")
	if hasBounds(r) {
		t.Notes = append(t.Notes, "< marks an upper bound: the low end of a writer's sketch was folded to fit its report.")
	}
	t.Summary = fmt.Sprintf("%d latency rows", len(t.Rows))
	return t
}

// errorTable counts failures by kind, as the application saw them (operations) and as the
// cluster did (attempts, retried or not).
func errorTable(r *cbv1.Results) htmlTable {
	t := htmlTable{ID: "errors", Caption: "Errors by kind", Head: []string{"kind", "failed operations", "failed attempts"}}
	e, a := r.Errors, r.AttemptErrors
	for _, k := range []struct {
		name       string
		ops, tries int64
	}{{"write timeout", e.WriteTimeout, a.WriteTimeout}, {"read timeout", e.ReadTimeout, a.ReadTimeout},
		{"unavailable", e.Unavailable, a.Unavailable}, {"overloaded", e.Overloaded, a.Overloaded},
		{"client timeout", e.ClientTimeout, a.ClientTimeout}, {"other", e.Other, a.Other}} {
		class := ""
		if k.ops > 0 || k.tries > 0 {
			class = "nonzero"
		}
		t.add(class, k.name, numfmt.Count(k.ops), numfmt.Count(k.tries))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%s attempts, %s retries; %s value bytes.", numfmt.Count(r.Attempts), numfmt.Count(r.Retries), numfmt.Count(r.Bytes)))
	return t
}

// writerTable lists every writer; many writers fold behind their spread.
func writerTable(r *cbv1.Results) (htmlTable, bool) {
	t := htmlTable{ID: "writers", Caption: "Writers", Head: []string{"writer", "operations", "ops/s", "errors", "p99 (ms)", "outcome"}}
	if len(r.PerWriter) == 0 {
		return t, false
	}
	loOps, hiOps, loP99, hiP99 := r.PerWriter[0].OpsPerSecond, r.PerWriter[0].OpsPerSecond, r.PerWriter[0].P99Micros, r.PerWriter[0].P99Micros
	for _, w := range r.PerWriter {
		class := ""
		if w.Outcome != "Succeeded" {
			class = "nonzero"
		}
		t.add(class, strconv.Itoa(int(w.Index)), numfmt.Count(w.Operations), numfmt.Count(w.OpsPerSecond), numfmt.Count(w.Errors), msCell(w.P99Micros), w.Outcome)
		loOps, hiOps = min(loOps, w.OpsPerSecond), max(hiOps, w.OpsPerSecond)
		loP99, hiP99 = min(loP99, w.P99Micros), max(hiP99, w.P99Micros)
	}
	t.Summary = fmt.Sprintf("%d writers: %s to %s ops/s each, p99 %s to %s ms", len(r.PerWriter),
		numfmt.Count(loOps), numfmt.Count(hiOps), msCell(loP99), msCell(hiP99))
	return t, true
}

// eachLatency calls row for every latency block of r, in the order the tables list them:
// each kind's response and service latency (and its failed operations'), the kinds of
// workload.operations, and the schedule lag.
func eachLatency(r *cbv1.Results, row func(name string, ops, perSecond int64, l cbv1.Latency)) {
	for _, kind := range []struct {
		name string
		ops  *cbv1.OperationResults
	}{{"writes", r.Writes}, {"reads", r.Reads}} {
		if kind.ops == nil {
			continue
		}
		all := kind.ops.Operations + kind.ops.Failed
		row(kind.name+" response", all, kind.ops.OpsPerSecond, kind.ops.Response)
		row(kind.name+" service", all, kind.ops.OpsPerSecond, kind.ops.Service)
		if f := kind.ops.Failure; f != nil {
			row(kind.name+" failed", kind.ops.Failed, 0, *f)
		}
	}
	for _, k := range r.OperationsByKind {
		row(string(k.Kind)+" response", k.Operations+k.Failed, k.OpsPerSecond, k.Response)
	}
	if sc := r.Schedule; sc != nil {
		row("schedule lag", sc.Due-sc.Missed, 0, sc.Lag)
	}
}

// backlogCell is the compaction backlog in tasks and, where read, the table's SSTables, the
// figure that moves when every compactor is busy: "1→30, 33; SSTables 4→37, 40".
func backlogCell(n cbv1.NodeServerResults) string {
	out := fmt.Sprintf("%d→%d, %d", n.CompactionBacklogBefore, n.CompactionBacklogAfter, n.CompactionBacklogPeak)
	if ss := n.SSTables; ss != nil {
		out += fmt.Sprintf("; SSTables %s→%s, %s", numfmt.Count(ss.Before), numfmt.Count(ss.After), numfmt.Count(ss.Peak))
		if ss.PendingCompactionsPeak != nil {
			out += fmt.Sprintf(", %s pending", numfmt.Count(*ss.PendingCompactionsPeak))
		}
	}
	return out
}

// nodeTable is the server's figures per node, with the units in the headers.
func nodeTable(s *cbv1.ServerResults) htmlTable {
	t := htmlTable{ID: "server", Caption: fmt.Sprintf("Server: %d nodes read", s.NodesRead),
		Head: []string{"node", "mutations", "reads", "pending peak (tasks)", "in stage", "blocked (tasks)", "dropped (msgs)", "hints (files)",
			"compactions", "backlog start→end, peak (tasks; the table's SSTables)", "flushes", "table (MiB)", "disk (MiB)", "coord. write p99, decayed (ms)",
			"CPU (cores)", "GC pauses (total, longest)"}, ColClass: map[int]string{4: "text", 16: "text"}}
	if unlisted := int(s.NodesRead) - len(s.Nodes); unlisted > 0 {
		t.Caption += fmt.Sprintf(" (%d counted only in the total)", unlisted)
	}
	row := func(name, class string, n cbv1.NodeServerResults) {
		if n.Dropped > 0 || n.Blocked > 0 || n.BlockedPeak > 0 {
			class = strings.TrimSpace(class + " nonzero")
		}
		coord := "-" // the node's version, and so the unit, was not known
		switch res := n.CoordinatorLatencyResolutionMicros; {
		case res > 0 && n.CoordinatorWriteP99Micros < res:
			coord = belowResolution(res)
		case res > 1:
			coord = msCell(n.CoordinatorWriteP99Micros) + " ±" + msCell(res/2)
		case res > 0:
			coord = msCell(n.CoordinatorWriteP99Micros)
		}
		t.add(class, []string{name, numfmt.Count(n.Mutations), numfmt.Count(n.Reads), numfmt.Count(n.PendingPeak), orDash(n.PendingStage),
			numfmt.Count(max(n.Blocked, n.BlockedPeak)), numfmt.Count(n.Dropped), numfmt.Count(n.Hints), numfmt.Count(n.Compactions),
			backlogCell(n), numfmt.Count(n.Flushes), fmt.Sprintf("%s→%s", numfmt.Count(n.TableMiBBefore), numfmt.Count(n.TableMiBAfter)),
			numfmt.Count(n.DiskMiB), coord, nodeCPU(n), gcPauses(n.GC)}...)
	}
	for _, n := range s.Nodes {
		row(n.Node, "", n)
	}
	row("total", "total", s.Total)
	t.Summary = fmt.Sprintf("%d nodes: %s mutations, %s dropped, GC %s", s.NodesRead, numfmt.Count(s.Total.Mutations),
		numfmt.Count(s.Total.Dropped), gcPauses(s.Total.GC))
	t.Notes = append(t.Notes, s.Anomalies...)
	for _, n := range s.Nodes {
		if n.Logs != nil && n.Logs.Worst != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("node %s logged: %s", n.Node, strings.TrimSpace(n.Logs.Worst)))
		}
	}
	t.Notes = append(t.Notes, notAvailable(s)...)
	for _, e := range s.Errors {
		t.Notes = append(t.Notes, "not read: "+e)
	}
	return t
}

// pointTable is a sweep's table, the best point marked. Runs named as the sweep names them
// are said once under the table rather than in a column of near-identical names.
func pointTable(sw *cbv1.BenchmarkSweep) htmlTable {
	t := htmlTable{ID: "points", Caption: "Points"}
	runsCol := !conventionalRunNames(sw)
	t.Head = append(append([]string{"point"}, axisPaths(sw)...), "outcome", "ops/s", "ops/s range", "p50 (ms)", "p99 (ms)", "p99.9 (ms)",
		"timeouts (per op)", "errors", "bottleneck")
	t.ColClass = map[int]string{0: "nowrap", len(sw.Spec.Axes) + 1: "text", len(sw.Spec.Axes) + 3: "nowrap"}
	for i := range sw.Spec.Axes {
		t.ColClass[1+i] = "text"
	}
	if runsCol {
		t.Head = append(t.Head, "runs")
		t.ColClass[len(t.Head)-1] = "names"
	} else {
		prefix := strings.TrimSuffix(sweep.RunName(sw.Name, 0, 0), "-0-0")
		t.Notes = append(t.Notes, fmt.Sprintf("Each point's runs are named %s-POINT-REPEAT: point 0's first is %s.", prefix, sweep.RunName(sw.Name, 0, 0)))
	}
	for _, p := range sw.Status.Table {
		class, mark := "", strconv.Itoa(int(p.Point))
		if b := sw.Status.Best; b != nil && b.Point == p.Point {
			class, mark = "best", mark+" ★ best"
		}
		cells := []string{mark}
		for i := range sw.Spec.Axes {
			v := ""
			if i < len(p.Values) {
				v = p.Values[i]
			}
			cells = append(cells, v)
		}
		cells = append(cells, string(p.Outcome))
		if p.Succeeded == 0 {
			class = "failed"
			cells = append(cells, "-", "-", "-", "-", "-", "-", "-", "-")
		} else {
			cells = append(cells, numfmt.Count(p.OpsPerSecond), fmt.Sprintf("%s–%s", numfmt.Count(p.OpsPerSecondMin), numfmt.Count(p.OpsPerSecondMax)),
				msCell(p.P50), msCell(p.P99), msCell(p.P999), orDash(p.TimeoutRatio), numfmt.Count(p.Errors), orDash(string(p.Bottleneck)))
		}
		if runsCol {
			cells = append(cells, strings.Join(p.Runs, " "))
		}
		t.add(class, cells...)
	}
	t.Summary = fmt.Sprintf("%d points, %d failed", len(sw.Status.Table), sw.Status.Failed)
	for _, p := range sw.Status.Table {
		if p.Message != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("point %d: %s", p.Point, p.Message))
		}
	}
	return t
}

// conventionalRunNames says every point's runs are named sweep.RunName(sweep, point, repeat).
func conventionalRunNames(sw *cbv1.BenchmarkSweep) bool {
	for _, p := range sw.Status.Table {
		for r, name := range p.Runs {
			if name != sweep.RunName(sw.Name, int(p.Point), r) {
				return false
			}
		}
	}
	return true
}
