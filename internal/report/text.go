package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// runTable renders a run's results for a person at a terminal.
func runTable(out io.Writer, run *cbv1.BenchmarkRun) error {
	w := &errWriter{w: out}
	head := fmt.Sprintf("BenchmarkRun %s: %s", run.Name, orDash(string(run.Status.Phase)))
	if st := run.Status.Datacenter; st != nil {
		nodes := st.Size
		if st.Nodes > 0 {
			nodes = st.Nodes
		}
		head += fmt.Sprintf(", datacenter %s with %d nodes", st.Name, nodes)
		if st.CassandraVersion != "" {
			head += ", Cassandra " + st.CassandraVersion
		}
	}
	w.printf("%s\n", head)
	if msg := outcomeMessage(run.Status.Conditions); msg != "" {
		w.printf("%s\n", msg)
	}
	r := run.Status.Results
	if r == nil {
		w.printf("no results: no writer has reported\n")
		return w.err
	}
	w.printf("%d of %d writers reported; window %s; %d operations, %d ops/s achieved\n", r.WritersReported,
		run.Spec.Writers.Replicas, time.Duration(r.WindowMillis)*time.Millisecond, r.Operations, r.OpsPerSecond)
	if r.StartSpreadMillis > 0 || r.MaxClockOffsetMillis > 0 {
		w.printf("writers started within %d ms of each other; largest clock offset from Cassandra %d ms (corrected)\n",
			r.StartSpreadMillis, r.MaxClockOffsetMillis)
	}
	if sc := r.Schedule; sc != nil {
		w.printf("target %d ops/s: %d due, %d missed (%d waiting at the end), %d sent over 1 ms late, drain %d ms\n",
			sc.TargetOpsPerSecond, sc.Due, sc.Missed, sc.BacklogAtEnd, sc.LateOver1ms, sc.DrainMillis)
	}
	costLine(w, r.Cost, r.OpsPerSecond)
	w.printf("\n")
	capacityTable(w, r.Capacity)

	tw := w.table(tabwriter.AlignRight)
	tw.row("\tops\tops/s\tp50\tp90\tp99\tp99.9\tmax\tmean\taccuracy\t\n")
	latencyRow := func(name string, ops, perSecond int64, l cbv1.Latency) {
		tw.row("%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, ops, perSecond,
			bound(l, "p50", l.P50), bound(l, "p90", l.P90), bound(l, "p99", l.P99), bound(l, "p999", l.P999),
			Micros(l.Max), Micros(l.Mean), Accuracy(l))
	}
	eachLatency(r, latencyRow)
	tw.flush()
	if hasBounds(r) {
		w.printf("(< marks an upper bound: the low end of a writer's sketch was folded to fit its report)\n")
	}
	for _, kind := range []struct {
		name string
		ops  *cbv1.OperationResults
	}{{"writes", r.Writes}, {"reads", r.Reads}} {
		if kind.ops != nil && kind.ops.MissRatio != "" {
			w.printf("%s: %d rows returned, %d found nothing (miss ratio %s)\n", kind.name, kind.ops.Rows, kind.ops.Misses, kind.ops.MissRatio)
		}
	}
	kindLines(w, r.OperationsByKind)
	loadLines(w, run)

	failureLines(w, r)
	sectionLines(w, r)

	if len(r.PerWriter) > 0 {
		w.printf("\n")
		tw = w.table(0)
		tw.row("writer\tops\tops/s\terrors\tp99\toutcome\n")
		for _, wr := range r.PerWriter {
			tw.row("%d\t%d\t%d\t%d\t%s\t%s\n", wr.Index, wr.Operations, wr.OpsPerSecond, wr.Errors, Micros(wr.P99Micros), wr.Outcome)
		}
		tw.flush()
	}
	serverTable(w, r)
	return w.err
}

// failureLines writes the failed operations and attempts, and the run's timelines.
func failureLines(w *errWriter, r *cbv1.Results) {
	e, a := r.Errors, r.AttemptErrors
	w.printf("\nfailed operations: write timeout %d, read timeout %d, unavailable %d, overloaded %d, client timeout %d, other %d\n",
		e.WriteTimeout, e.ReadTimeout, e.Unavailable, e.Overloaded, e.ClientTimeout, e.Other)
	w.printf("failed attempts:   write timeout %d, read timeout %d, unavailable %d, overloaded %d, client timeout %d, other %d\n",
		a.WriteTimeout, a.ReadTimeout, a.Unavailable, a.Overloaded, a.ClientTimeout, a.Other)
	w.printf("timeouts per operation %s, per attempt %s; %d attempts, %d retries, value bytes %d\n",
		r.TimeoutsPerOperation, r.TimeoutsPerAttempt, r.Attempts, r.Retries, r.Bytes)
	if p := r.WritePaths; p != nil {
		f := p.Fallbacks
		w.printf("write requests: %d direct, %d through the driver; inserts the direct path left to the driver: %s (no route %d, dial error %d, handshake %d, auth challenge %d, streams exhausted %d)\n",
			p.Direct, p.Driver, p.FallbackRatio, f.NoRoute, f.DialError, f.Handshake, f.AuthChallenge, f.StreamsExhausted)
	}
	if tl := r.Timeline; tl != nil && len(tl.Points) > 0 {
		w.printf("\nops/s every %s: %s\n", time.Duration(tl.IntervalMillis)*time.Millisecond, timelineSparkline(tl, func(s stretch) float64 { return s.opsPerSecond }))
		w.printf("p99 every %s:   %s\n", time.Duration(tl.IntervalMillis)*time.Millisecond, timelineSparkline(tl, func(s stretch) float64 { return s.p99Millis * 1000 }))
	}
	if r.Server != nil && r.Server.Timeline != nil && len(r.Server.Timeline.Points) > 0 {
		st := r.Server.Timeline
		w.printf("queued tasks (peak) every %s: %s\n", time.Duration(st.IntervalMillis)*time.Millisecond, serverSparkline(st))
	}
}

// kindLines says what the scans read and how the lightweight transactions came out.
func kindLines(w *errWriter, kinds []cbv1.KindResults) {
	for _, k := range kinds {
		switch k.Kind {
		case cbv1.OperationScanPartition, cbv1.OperationScanTokenRange:
			w.printf("%s: %d rows in %d pages, %d scans found nothing\n", k.Kind, k.Rows, k.Pages, k.Misses)
		case cbv1.OperationInsertIfNotExists:
			w.printf("%s: %d applied, %d not applied (the row existed)\n", k.Kind, k.Applied, k.NotApplied)
		}
	}
}

func hasBounds(r *cbv1.Results) bool {
	for _, k := range r.OperationsByKind {
		if len(k.Response.UpperBounds) > 0 {
			return true
		}
	}
	for _, o := range []*cbv1.OperationResults{r.Writes, r.Reads} {
		if o != nil && (len(o.Response.UpperBounds) > 0 || len(o.Service.UpperBounds) > 0 || (o.Failure != nil && len(o.Failure.UpperBounds) > 0)) {
			return true
		}
	}
	return r.Schedule != nil && len(r.Schedule.Lag.UpperBounds) > 0
}

// bound renders a percentile, marked "<" when it is only an upper bound.
func bound(l cbv1.Latency, name string, v int64) string {
	if slices.Contains(l.UpperBounds, name) {
		return "<" + Micros(v)
	}
	return Micros(v)
}

// Accuracy renders a latency block's relative accuracy as a percentage ("±1%").
func Accuracy(l cbv1.Latency) string {
	if l.RelativeAccuracy == "" {
		return "-"
	}
	f, err := strconv.ParseFloat(l.RelativeAccuracy, 64)
	if err != nil {
		return l.RelativeAccuracy
	}
	return "±" + strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}

// timelineSparkline draws one figure of a timeline as a line of block characters, lowest to
// highest, one to an interval as the charts draw them (stretches): a short last interval is
// joined to the one before, never a block of its own.
func timelineSparkline(tl *cbv1.Timeline, figure func(stretch) float64) string {
	spans, _ := stretches(tl)
	vals := make([]int64, len(spans))
	for i, s := range spans {
		vals[i] = int64(math.Round(figure(s)))
	}
	return sparkline(vals, nil)
}

// serverSparkline draws the server timeline's queue peaks; an interval no sample ended in
// is a space.
func serverSparkline(tl *cbv1.ServerTimeline) string {
	iv := max(tl.IntervalMillis, 1)
	n := tl.Points[len(tl.Points)-1].OffsetMillis/iv + 1
	vals, seen := make([]int64, min(n, 1000)), make([]bool, min(n, 1000))
	for _, p := range tl.Points {
		if k := p.OffsetMillis / iv; k >= 0 && k < int64(len(vals)) {
			vals[k], seen[k] = p.PendingPeak, true
		}
	}
	return sparkline(vals, seen)
}

// sparkline draws values as block characters, lowest to highest; where seen is given, the
// values not seen are spaces.
func sparkline(vals []int64, seen []bool) string {
	const blocks = "▁▂▃▄▅▆▇█"
	levels := []rune(blocks)
	var hi int64
	for _, v := range vals {
		hi = max(hi, v)
	}
	var b strings.Builder
	for k, v := range vals {
		if seen != nil && !seen[k] {
			b.WriteByte(' ')
			continue
		}
		i := 0
		if hi > 0 {
			i = int(v * int64(len(levels)-1) / hi)
		}
		b.WriteRune(levels[i])
	}
	return b.String() + fmt.Sprintf(" (max %d)", hi)
}

// sweepTable renders a sweep's table; the best point is marked with a star.
func sweepTable(out io.Writer, sw *cbv1.BenchmarkSweep) error {
	w := &errWriter{w: out}
	repeats := max(sw.Spec.Repeats, 1)
	w.printf("BenchmarkSweep %s: %s, %s; %d point(s), %d run(s) each\n", sw.Name, orDash(string(sw.Status.Phase)),
		orDash(sw.Status.Progress), len(sw.Status.Table), repeats)
	if msg := outcomeMessage(sw.Status.Conditions); msg != "" {
		w.printf("%s\n", msg)
	}
	if b := sw.Status.Best; b != nil {
		w.printf("best by %s: point %d, %s\n", b.By, b.Point, b.Summary)
	}
	w.printf("\n")

	tw := w.table(0)
	header := []string{"point"}
	header = append(header, axisPaths(sw)...)
	header = append(header, "outcome", "ops/s")
	if repeats > 1 {
		header = append(header, "ops/s range")
	}
	header = append(header, "p50", "p99", "p99.9", "timeouts", "errors")
	verdicts := false
	for _, p := range sw.Status.Table {
		verdicts = verdicts || p.Bottleneck != ""
	}
	if verdicts {
		header = append(header, "bottleneck")
	}
	header = append(header, "runs")
	tw.row("%s\n", strings.Join(header, "\t"))
	for _, p := range sw.Status.Table {
		mark := ""
		if sw.Status.Best != nil && sw.Status.Best.Point == p.Point {
			mark = " *"
		}
		cells := []string{fmt.Sprintf("%d%s", p.Point, mark)}
		for i := range sw.Spec.Axes {
			v := ""
			if i < len(p.Values) {
				v = p.Values[i]
			}
			cells = append(cells, v)
		}
		cells = append(cells, string(p.Outcome))
		if p.Succeeded == 0 {
			blank := 6
			if repeats > 1 {
				blank++
			}
			if verdicts {
				blank++
			}
			for range blank {
				cells = append(cells, "-")
			}
		} else {
			cells = append(cells, fmt.Sprint(p.OpsPerSecond))
			if repeats > 1 {
				cells = append(cells, fmt.Sprintf("%d-%d", p.OpsPerSecondMin, p.OpsPerSecondMax))
			}
			cells = append(cells, Micros(p.P50), Micros(p.P99), Micros(p.P999), p.TimeoutRatio, fmt.Sprint(p.Errors))
			if verdicts {
				cells = append(cells, orDash(string(p.Bottleneck)))
			}
		}
		cells = append(cells, strings.Join(p.Runs, " "))
		tw.row("%s\n", strings.Join(cells, "\t"))
	}
	tw.flush()
	for _, p := range sw.Status.Table {
		if p.Message != "" {
			w.printf("point %d: %s\n", p.Point, p.Message)
		}
	}
	return w.err
}

// Micros renders microseconds with a unit a reader takes in at a glance.
func Micros(v int64) string {
	switch {
	case v >= 10_000_000:
		return fmt.Sprintf("%.1fs", float64(v)/1e6)
	case v >= 10_000:
		return fmt.Sprintf("%.1fms", float64(v)/1e3)
	case v >= 1000:
		return fmt.Sprintf("%.2fms", float64(v)/1e3)
	}
	return fmt.Sprintf("%dus", v)
}

// sectionLines prints, each after a blank line, what only some runs have: results by
// datacenter, the replication lag, the disruptions.
func sectionLines(w *errWriter, r *cbv1.Results) {
	if len(r.Datacenters) > 0 {
		w.printf("\n")
		datacenterLines(w, r.Datacenters)
	}
	if r.ReplicationLag != nil {
		w.printf("\n")
		lagLines(w, r.ReplicationLag)
	}
	if len(r.Disruptions) > 0 {
		w.printf("\n")
		disruptionLines(w, r.Disruptions)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errWriter keeps the first write error so that rendering code can print freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// printf writes; the error, if any, is kept in e.err.
func (e *errWriter) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(e, format, args...)
}

// table starts a tab-aligned table that writes into e when flushed.
func (e *errWriter) table(flags uint) *table {
	return &table{tw: tabwriter.NewWriter(e, 0, 0, 2, ' ', flags)}
}

// table buffers rows until flush; write errors surface through the errWriter beneath it.
type table struct{ tw *tabwriter.Writer }

func (t *table) row(format string, args ...any) { _, _ = fmt.Fprintf(t.tw, format, args...) }

func (t *table) flush() { _ = t.tw.Flush() }
