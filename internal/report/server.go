package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
)

// serverTable renders the verdict and what the nodes did; nothing when the run has neither.
func serverTable(w *errWriter, r *cbv1.Results) {
	if b := r.Bottleneck; b != nil {
		w.printf("\nbottleneck: %s\n", b.Verdict)
		for _, e := range b.Evidence {
			w.printf("  - %s\n", e)
		}
		w.printf("  writers: busiest at %d%% of its CPU, throttled %d%% of periods, scheduler delay p99 %s\n",
			b.WriterCPUPercent, b.WriterThrottledPercent, Micros(b.WriterSchedP99Micros))
	}
	s := r.Server
	if s == nil {
		return
	}
	w.printf("\nserver: %d nodes read", s.NodesRead)
	if unlisted := int(s.NodesRead) - len(s.Nodes); unlisted > 0 {
		w.printf(" (%d counted only in the total)", unlisted)
	}
	w.printf("\n")
	tw := w.table(0)
	tw.row("node\tmutations\treads\tCPU\tpending peak\tblocked\tdropped\thints\tcompactions\tbacklog\tSSTables\tflushes\ttable MiB\tdisk MiB\tcoord write p99 (decayed)\tGC pauses\n")
	row := func(name string, n cbv1.NodeServerResults) {
		pending := numfmt.Count(n.PendingPeak)
		if n.PendingStage != "" {
			pending += " " + n.PendingStage
		}
		tw.row("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name,
			numfmt.Count(n.Mutations), numfmt.Count(n.Reads), nodeCPU(n), pending, numfmt.Count(max(n.Blocked, n.BlockedPeak)),
			numfmt.Count(n.Dropped), numfmt.Count(n.Hints), numfmt.Count(n.Compactions),
			fmt.Sprintf("%d→%d (peak %d)", n.CompactionBacklogBefore, n.CompactionBacklogAfter, n.CompactionBacklogPeak),
			sstables(n.SSTables), numfmt.Count(n.Flushes), fmt.Sprintf("%s→%s", numfmt.Count(n.TableMiBBefore), numfmt.Count(n.TableMiBAfter)),
			numfmt.Count(n.DiskMiB), coordP99(n.CoordinatorWriteP99Micros, n.CoordinatorLatencyResolutionMicros), gcPauses(n.GC))
	}
	for _, n := range s.Nodes {
		row(n.Node, n)
	}
	row("total", s.Total)
	tw.flush()
	for _, a := range s.Anomalies {
		w.printf("  ! %s\n", a)
	}
	for _, n := range s.Nodes {
		if n.Logs != nil && n.Logs.Worst != "" {
			w.printf("  node %s logged: %s\n", n.Node, strings.TrimSpace(n.Logs.Worst))
		}
	}
	for _, line := range notAvailable(s) {
		w.printf("  %s\n", line)
	}
	for _, e := range s.Errors {
		w.printf("  not read: %s\n", e)
	}
}

// belowResolution renders a latency under its resolution: "< 1 ms".
func belowResolution(resolution int64) string {
	if resolution%1000 == 0 {
		return "< " + numfmt.Millis(resolution/1000)
	}
	return fmt.Sprintf("< %d µs", resolution)
}

// notAvailable lists why nodes' figures are absent, one line a reason.
func notAvailable(s *cbv1.ServerResults) []string {
	var out []string
	for _, n := range s.Nodes {
		for _, why := range n.NotAvailable {
			out = append(out, fmt.Sprintf("node %s: not available: %s", n.Node, why))
		}
	}
	return out
}

// gcPauses renders "3 (1.5 s, max 650 ms)", with "over 200 ms" where only GCInspector's
// lines were read; "-" where no source was readable.
func gcPauses(g *cbv1.NodeGCResults) string {
	if g == nil {
		return "-"
	}
	which := ""
	if g.Source == cbv1.GCSourceSystemLogs {
		which = " over 200 ms"
	}
	if g.Pauses == 0 {
		return "0" + which
	}
	if g.Source == cbv1.GCSourceMetrics || g.Source == cbv1.GCSourceHSPerfData { // counters keep no longest
		return fmt.Sprintf("%s (%s)", numfmt.Count(g.Pauses), numfmt.Millis(g.TotalMillis))
	}
	return fmt.Sprintf("%s%s (%s, max %s)", numfmt.Count(g.Pauses), which, numfmt.Millis(g.TotalMillis), numfmt.Millis(g.MaxMillis))
}

// coordP99 renders a coordinator p99 with its resolution: "2 ms ±500 µs"; "< 1 ms" when
// it is under its resolution (Cassandra 5.0's tables round to the millisecond, so a 300 µs
// p99 reads 0 there); "-" when the node's version, and so the figure's unit, was not known.
func coordP99(v, resolution int64) string {
	switch {
	case resolution == 0:
		return "-"
	case v < resolution:
		return belowResolution(resolution)
	case resolution > 1:
		return Micros(v) + " ±" + Micros(resolution/2)
	}
	return Micros(v)
}

// nodeCPU renders "1.9/2.0 cores", what it used of what it could use; "-" where the node's
// process was not readable.
func nodeCPU(n cbv1.NodeServerResults) string {
	cores := func(m int64) string { return strconv.FormatFloat(float64(m)/1000, 'f', 1, 64) }
	limit := n.CPULimitMillicores
	if limit == 0 {
		limit = int64(n.CPUCores) * 1000
	}
	switch {
	case n.CPUMillicores == 0 && limit == 0:
		return "-"
	case limit == 0: // from a metrics endpoint, with no CPU limit on the datacenter
		return cores(n.CPUMillicores) + " cores"
	}
	return fmt.Sprintf("%s/%s cores", cores(n.CPUMillicores), cores(limit))
}

// sstables renders the table's SSTables "4→37, peak 40", with the strategy's estimate of
// pending compactions where the node served it: "4→37, peak 40; 12 pending"; "-" unread.
func sstables(s *cbv1.NodeSSTableResults) string {
	if s == nil {
		return "-"
	}
	out := fmt.Sprintf("%s→%s, peak %s", numfmt.Count(s.Before), numfmt.Count(s.After), numfmt.Count(s.Peak))
	if s.PendingCompactionsPeak != nil {
		out += fmt.Sprintf("; %s pending", numfmt.Count(*s.PendingCompactionsPeak))
	}
	return out
}

// Server writes the verdict and the server section of results on their own, for the local
// `cassbench run` table.
func Server(out io.Writer, r *cbv1.Results) error {
	w := &errWriter{w: out}
	if r != nil {
		serverTable(w, r)
	}
	return w.err
}
