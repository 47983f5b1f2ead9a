package report

import (
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestDisruptionLines(t *testing.T) {
	var b strings.Builder
	w := &errWriter{w: &b}
	disruptionLines(w, []cbv1.DisruptionResult{
		{Name: "stop-node 2 at 20s; start-node 2 at 40s", StartMillis: 20000, EndMillis: 52500, Errors: 12, ErrorsAfter: 3,
			BaselineP99Micros: 1000, PeakP99Micros: 250000, ObjectiveP99Micros: 10000, OverObjectiveMillis: 4000, Recovered: true, RecoveryMillis: 8000,
			HintsStored: 4200, HintsDelivered: 4100},
		{Name: "flush 1 at 5s", StartMillis: 5000, EndMillis: 5400, BaselineP99Micros: 1000, PeakP99Micros: 3000},
		{Name: "compact 1 at 0s", EndMillis: 900, PeakP99Micros: 2000},
	})
	want := `disruptions (from the window's start; p99 over 5 s windows, an upper bound from the timeline's intervals):
  stop-node 2 at 20s; start-node 2 at 40s: 20s..52.5s, 12 errors while it lasted, 3 after until recovered
    p99 1.00ms before, peak 250.0ms; back within 10% and stable for 10 s 8s after it ended
    4s over the p99 objective of 10.0ms
    hints: 4200 stored, 4100 delivered until the next fault or the window's end
  flush 1 at 5s: 5s..5.4s, 0 errors while it lasted, 0 after until recovered
    p99 1.00ms before, peak 3.00ms; not recovered (within 10% for 10 s) before the window ended
  compact 1 at 0s: 0s..900ms, 0 errors while it lasted, 0 after until recovered
    p99 peak 2.00ms; no interval before it to recover to
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The page shows each fault as a band over the timeline, from its start to its end, and as
// a row of the run's disruption table; the replication lag gets a table of its own with the
// figures under the clocks' error bounded, as the run's text gives them.
func TestThePageShowsDisruptionsAndReplicationLag(t *testing.T) {
	tl := &cbv1.Timeline{IntervalMillis: 1000}
	for i := range int64(60) {
		tl.Points = append(tl.Points, cbv1.TimelinePoint{OffsetMillis: i * 1000, Operations: 1000, OpsPerSecond: 1000, P99Micros: 1500})
	}
	run := &cbv1.BenchmarkRun{}
	run.Name = "faulty"
	run.Status.Results = &cbv1.Results{WritersReported: 1, Timeline: tl,
		Disruptions: []cbv1.DisruptionResult{{Name: "stop-node 2 at 20s; start-node 2 at 40s", StartMillis: 20000, EndMillis: 40000,
			Errors: 12, BaselineP99Micros: 1500, PeakP99Micros: 250000, Recovered: true, RecoveryMillis: 8000, HintsStored: 4321, HintsDelivered: 4320}},
		ReplicationLag: &cbv1.ReplicationLagResults{ObservedDatacenter: "dc2", SampleShare: "0.05", LimitMillis: 3000, Seen: 40, Censored: 2,
			Lag: &cbv1.Latency{P50: 100, P90: 900, P99: 4000, Max: 9000}, BoundMicros: 2000, ClockErrorMicros: 500}}

	f, ok := timelineFigure([]*cbv1.BenchmarkRun{run})
	if !ok {
		t.Fatal("no timeline figure")
	}
	for _, pn := range f.panels[:2] {
		if len(pn.bands) != 1 || pn.bands[0].from != 20 || pn.bands[0].to != 40 ||
			pn.bands[0].label != "stop-node 2 at 20s; start-node 2 at 40s" || pn.bands[0].note != "recovered 8s after" {
			t.Errorf("panel %s bands %+v, want the fault from 20 s to 40 s with its recovery", pn.name, pn.bands)
		}
	}
	var page strings.Builder
	if err := HTML(&page, "faults", []*cbv1.BenchmarkRun{run}, nil, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="band"`, "Disruptions inside the window", "recovered 8s after", "<td>250</td>", "<td>1.50</td>", "<td>4321</td>", "<td>4320</td>",
		"Replication lag to dc2", "≤600us", "4.00ms", "2 of 42 keys were not readable in dc2"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
