package replag

import (
	"fmt"
	"io"
	"time"
)

// Write prints what an observer of datacenter dc saw, with keys not seen within limit
// counted apart from the percentiles and the bound every figure carries.
func (r Result) Write(w io.Writer, dc string, limit time.Duration) error {
	us := func(v float64) string {
		return time.Duration(v * float64(time.Microsecond)).Round(10 * time.Microsecond).String()
	}
	_, err := fmt.Fprintf(w, "replication lag to %s (first LOCAL_ONE read there that found a row, minus its write's acknowledgement):\n", dc)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  keys: %d seen, %d censored (not seen within %s), %d dropped (observer full), %d read errors\n",
		r.Seen, r.Censored, limit, r.Dropped, r.ReadErrors)
	if r.Lag != nil && r.Lag.Count() > 0 {
		fmt.Fprintf(w, "  lag: p50 %s  p90 %s  p99 %s  max %s  (±%.3g%% relative)\n", us(r.Lag.Quantile(0.5)), us(r.Lag.Quantile(0.9)),
			us(r.Lag.Quantile(0.99)), us(r.Lag.Max()), r.Lag.RelativeAccuracy()*100)
		fmt.Fprintf(w, "  bound: each figure may be up to %s above the true lag (read gap %s + clock offsets %s) and %s below it\n",
			us(float64(r.Bound())), us(float64(r.MaxGapMicros)), us(float64(r.ClockErrorMicros)), us(float64(r.ClockErrorMicros)))
	}
	if r.Censored > 0 {
		_, err = fmt.Fprintf(w, "  %d of %d keys were not readable in %s within %s: it is unreachable or far behind; its writes wait as hints on the writers' datacenter\n",
			r.Censored, r.Seen+r.Censored, dc, limit)
	}
	return err
}
