package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// observingSummary is writer index's summary with what its observer of dc2 saw: seen keys
// each lagging lagMicros, and censored keys not seen within the limit.
func observingSummary(t *testing.T, index, writers int32, seen, censored int64, lagMicros float64) string {
	t.Helper()
	s, err := summary.Decode([]byte(play.WriterSummary(t, index, writers, 1000, "")))
	if err != nil {
		t.Fatal(err)
	}
	lag := sketch.New()
	lag.AddN(lagMicros, uint64(seen))
	s.Replag = &summary.Replag{Datacenter: "dc2", Seen: seen, Censored: censored, MaxGapMicros: 10_000, ClockErrorMicros: 400, Lag: lag}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run with writers in dc1 and observers in dc2 hands its writers both datacenters' contact
// points (each writer observes dc2 from its own process, podenv.ObservedDatacenter), and its
// status holds the replication lag its writers' observers saw, merged: counts added, the
// percentiles of every seen key, the widest bound, the censored keys apart.
func TestRunAcrossTwoDatacentersReportsReplicationLag(t *testing.T) {
	ns := env.Namespace(t)
	dc1, dc2 := readyDatacenter(t, ns, "dc1", 3), readyDatacenter(t, ns, "dc2", 3)
	startManager(t, managerConfig(t, ns))
	gen1, gen2 := pl.Datacenter(t, dc1).Generation, pl.Datacenter(t, dc2).Generation

	run := builders.MakeBenchmarkRun("observed", ns).Writers(2).Duration(time.Second).Size(4).CassandraYaml(map[string]any{"concurrent_writes": 128}).
		Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2", Observers: 1}).Obj()
	run.Spec.ReplicationLag = &cbv1.ReplicationLagSpec{SampleShare: "0.05", Limit: &metav1.Duration{Duration: 5 * time.Second}}
	pl.Create(t, run)
	pl.PassPreflight(t, run)
	pl.OperatorApplies(t, dc1, gen1)
	pl.OperatorApplies(t, dc2, gen2)
	setup := pl.WaitJob(t, ns, "observed-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 8})}})
	pl.FinishJob(t, setup, []int32{0}, nil)

	writers := pl.WaitJob(t, ns, "observed-writer")
	placement, err := podenv.ParsePlacement(envOf(writers, podenv.Placement))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range placement {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "dc1,dc2" {
		t.Errorf("placement names %v: the writers need dc2's contact point to observe it", names)
	}
	pl.Pods(t, writers, map[int32]play.PodResult{
		0: {Message: observingSummary(t, 0, 2, 30, 0, 2000)},
		1: {Message: observingSummary(t, 1, 2, 10, 5, 90_000)},
	})
	pl.FinishJob(t, writers, []int32{0, 1}, nil)

	done := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if done.Status.Results == nil || done.Status.Results.ReplicationLag == nil {
		t.Fatalf("no replication lag in the results: %+v", done.Status.Results)
	}
	l := done.Status.Results.ReplicationLag
	got := fmt.Sprintf("%s share=%s limit=%dms seen=%d censored=%d bound=%dµs clock=%dµs",
		l.ObservedDatacenter, l.SampleShare, l.LimitMillis, l.Seen, l.Censored, l.BoundMicros, l.ClockErrorMicros)
	if want := "dc2 share=0.05 limit=5000ms seen=40 censored=5 bound=10400µs clock=400µs"; got != want {
		t.Errorf("replication lag %s, want %s", got, want)
	}
	// 30 of the 40 seen keys lagged 2 ms: the median is theirs, the maximum the 90 ms ones.
	if l.Lag == nil || l.Lag.P50 < 1900 || l.Lag.P50 > 2100 || l.Lag.Max < 85_000 {
		t.Errorf("lag %+v: want p50 near 2000 µs and max near 90000 µs", l.Lag)
	}
	// Writer 1's observer did not see 5 keys within the limit: the run says so.
	if c := findCond(done, cbv1.ConditionReplicationKeptUp); c.Status != metav1.ConditionFalse || c.Reason != cbv1.ReasonKeysNotSeen ||
		!strings.Contains(c.Message, "5 of 45 sampled inserts were not readable in dc2 within 5s") {
		t.Errorf("ReplicationKeptUp %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	givenBack(t, dc1)
	givenBack(t, dc2)
}
