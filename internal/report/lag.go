package report

import (
	"fmt"
	"io"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// LagText writes what an observer in another datacenter saw of the writers' inserts: the
// keys seen and censored, the lag's percentiles with the bound each carries, and, when keys
// were censored, what that says about the datacenter.
func LagText(out io.Writer, l *cbv1.ReplicationLagResults) error {
	w := &errWriter{w: out}
	lagLines(w, l)
	return w.err
}

func lagLines(w *errWriter, l *cbv1.ReplicationLagResults) {
	if l == nil {
		return
	}
	limit := time.Duration(l.LimitMillis) * time.Millisecond
	w.printf("replication lag to %s (first LOCAL_ONE read there that found a row, minus its write's acknowledgement; %s of the inserts read back):\n",
		l.ObservedDatacenter, l.SampleShare)
	w.printf("  keys: %d seen, %d censored (not seen within %s), %d dropped (observer full), %d read errors\n",
		l.Seen, l.Censored, limit, l.Dropped, l.ReadErrors)
	if g := l.Lag; g != nil {
		fig := func(name string, v int64) string { return lagFigure(*g, name, v, l.ClockErrorMicros) }
		w.printf("  lag: p50 %s  p90 %s  p99 %s  max %s  (%s)\n", fig("p50", g.P50), fig("p90", g.P90),
			fig("p99", g.P99), fig("max", g.Max), Accuracy(*g))
		w.printf("  bound: each figure may be up to %s above the true lag (read gaps and clock offsets) and %s below it\n",
			Micros(l.BoundMicros), Micros(l.ClockErrorMicros))
	}
	if l.Censored > 0 {
		w.printf("  %d of %d keys were not readable in %s within %s: it is unreachable or far behind; its writes wait as hints on the writers' datacenter\n",
			l.Censored, l.Seen+l.Censored, l.ObservedDatacenter, limit)
	}
}

// lagFigure renders one of the lag's figures. A figure below the clocks' error (an
// acknowledgement and a sighting taken on clocks that may disagree by that much) cannot be
// told from no lag at all: it reads as at most the figure plus that error ("≤4.35ms"), never
// as a lag of 0us that the clocks cannot vouch for.
func lagFigure(g cbv1.Latency, name string, v, clockError int64) string {
	if clockError > 0 && v < clockError {
		return "≤" + Micros(v+clockError)
	}
	return bound(g, name, v)
}

// lagTable is the replication lag on the page: the keys and the figures with their bounds.
func lagTable(l *cbv1.ReplicationLagResults) (htmlTable, bool) {
	t := htmlTable{ID: "replication-lag", Caption: "Replication lag to " + l.ObservedDatacenter,
		Head: []string{"seen", "censored", "dropped", "read errors", "p50", "p90", "p99", "max"}}
	class := ""
	if l.Censored > 0 {
		class = "nonzero"
	}
	cells := []string{fmt.Sprint(l.Seen), fmt.Sprint(l.Censored), fmt.Sprint(l.Dropped), fmt.Sprint(l.ReadErrors), "-", "-", "-", "-"}
	if g := l.Lag; g != nil {
		for i, f := range []struct {
			name string
			v    int64
		}{{"p50", g.P50}, {"p90", g.P90}, {"p99", g.P99}, {"max", g.Max}} {
			cells[4+i] = lagFigure(*g, f.name, f.v, l.ClockErrorMicros)
		}
	}
	t.add(class, cells...)
	limit := time.Duration(l.LimitMillis) * time.Millisecond
	t.Notes = append(t.Notes, fmt.Sprintf("The first LOCAL_ONE read in %s that found a row, minus its write's acknowledgement, for %s of the inserts; censored: not seen within %s.",
		l.ObservedDatacenter, l.SampleShare, limit))
	if l.Lag != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("Each figure may be up to %s above the true lag (read gaps and clock offsets) and %s below it.",
			Micros(l.BoundMicros), Micros(l.ClockErrorMicros)))
	}
	if l.Censored > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d of %d keys were not readable in %s within %s: it is unreachable or far behind; its writes wait as hints on the writers' datacenter.",
			l.Censored, l.Seen+l.Censored, l.ObservedDatacenter, limit))
	}
	return t, true
}
