package report

import (
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
		w.printf("  lag: p50 %s  p90 %s  p99 %s  max %s  (%s)\n", bound(*g, "p50", g.P50), bound(*g, "p90", g.P90),
			bound(*g, "p99", g.P99), Micros(g.Max), Accuracy(*g))
		w.printf("  bound: each figure may be up to %s above the true lag (read gaps and clock offsets) and %s below it\n",
			Micros(l.BoundMicros), Micros(l.ClockErrorMicros))
	}
	if l.Censored > 0 {
		w.printf("  %d of %d keys were not readable in %s within %s: it is unreachable or far behind; its writes wait as hints on the writers' datacenter\n",
			l.Censored, l.Seen+l.Censored, l.ObservedDatacenter, limit)
	}
}
