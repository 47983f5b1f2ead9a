package report

import (
	"fmt"
	"io"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/server"
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
	tw.row("node\tmutations\treads\tpending peak\tblocked\tdropped\thints\tcompactions\tbacklog\tflushes\ttable MiB\tdisk MiB\tcoord write p99\tGC pauses\n")
	row := func(name string, n cbv1.NodeServerResults) {
		pending := server.Count(n.PendingPeak)
		if n.PendingStage != "" {
			pending += " " + n.PendingStage
		}
		tw.row("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name,
			server.Count(n.Mutations), server.Count(n.Reads), pending, server.Count(max(n.Blocked, n.BlockedPeak)),
			server.Count(n.Dropped), server.Count(n.Hints), server.Count(n.Compactions),
			fmt.Sprintf("%d→%d (peak %d)", n.CompactionBacklogBefore, n.CompactionBacklogAfter, n.CompactionBacklogPeak),
			server.Count(n.Flushes), fmt.Sprintf("%s→%s", server.Count(n.TableMiBBefore), server.Count(n.TableMiBAfter)),
			server.Count(n.DiskMiB), Micros(n.CoordinatorWriteP99Micros), gcPauses(n.Logs))
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
	for _, e := range s.Errors {
		w.printf("  not read: %s\n", e)
	}
}

// gcPauses renders "3 (1.5 s, max 650 ms)"; "-" where the node's logs are not readable.
func gcPauses(l *cbv1.NodeLogResults) string {
	if l == nil {
		return "-"
	}
	if l.GCPauses == 0 {
		return "0"
	}
	return fmt.Sprintf("%s (%s, max %s)", server.Count(l.GCPauses), server.Millis(l.GCTotalMillis), server.Millis(l.GCMaxMillis))
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
