package nodewatch

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseLogs: a node's log lines are whatever its image logs. The sums stay non-negative
// and the quoted line within maxQuote bytes of valid UTF-8 (it travels in the summary and in
// status, where a cut rune would show as garbage).
func FuzzParseLogs(f *testing.F) {
	f.Add("org.apache.cassandra.service.GCInspector", "WARN", "G1 Old Generation GC in 1200ms.  G1 Old Gen: 9 -> 8")
	f.Add("org.apache.cassandra.metrics.MessagingMetrics", "INFO", "MUTATION_REQ messages were dropped in last 5000 ms: 3 internal and 12 cross node. Mean internal dropped latency: 2300 ms")
	f.Add("x", "ERROR", "java.lang.OutOfMemoryError: Java heap space "+strings.Repeat("é", 100))
	// Two lines of the largest count ParseInt takes: the sum must not wrap negative.
	f.Add("x", "INFO", "MUTATION_REQ messages were dropped in last 5000 ms: 9223372036854775807 internal and 1 cross node")
	f.Fuzz(func(t *testing.T, logger, level, msg string) {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		l := LogLine{At: t0, Level: level, Logger: logger, Message: msg}
		out := ParseLogs([]LogLine{l, l}, t0, t0)
		if out.GCPauses < 0 || out.GCTotalMillis < 0 || out.GCMaxMillis < 0 || out.DroppedInternal < 0 ||
			out.GCTotalMillis < out.GCMaxMillis {
			t.Fatalf("sums %+v", out)
		}
		if len(out.Worst) > maxQuote || (utf8.ValidString(msg) && !utf8.ValidString(out.Worst)) {
			t.Fatalf("quote of %d bytes, valid UTF-8 %v: %q", len(out.Worst), utf8.ValidString(out.Worst), out.Worst)
		}
	})
}
