package report

import (
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestDisruptionLines(t *testing.T) {
	var b strings.Builder
	w := &errWriter{w: &b}
	disruptionLines(w, []cbv1.DisruptionResult{
		{Name: "stop-node 2 at 20s; start-node 2 at 40s", StartMillis: 20000, EndMillis: 52500, Errors: 12, ErrorsAfter: 3,
			BaselineP99Micros: 1000, PeakP99Micros: 250000, ObjectiveP99Micros: 10000, OverObjectiveMillis: 4000, Recovered: true, RecoveryMillis: 8000},
		{Name: "flush 1 at 5s", StartMillis: 5000, EndMillis: 5400, BaselineP99Micros: 1000, PeakP99Micros: 3000},
		{Name: "compact 1 at 0s", EndMillis: 900, PeakP99Micros: 2000},
	})
	want := `disruptions (from the window's start; p99 over 5 s windows, an upper bound from the timeline's intervals):
  stop-node 2 at 20s; start-node 2 at 40s: 20s..52.5s, 12 errors while it lasted, 3 after until recovered
    p99 1.00ms before, peak 250.0ms; back within 10% and stable for 10 s 8s after it ended
    4s over the p99 objective of 10.0ms
  flush 1 at 5s: 5s..5.4s, 0 errors while it lasted, 0 after until recovered
    p99 1.00ms before, peak 3.00ms; not recovered (within 10% for 10 s) before the window ended
  compact 1 at 0s: 0s..900ms, 0 errors while it lasted, 0 after until recovered
    p99 peak 2.00ms; no interval before it to recover to
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
