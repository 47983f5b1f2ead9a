package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

func getSweep(t testing.TB, sw *cbv1.BenchmarkSweep) *cbv1.BenchmarkSweep {
	t.Helper()
	out := &cbv1.BenchmarkSweep{}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(sw), out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitSweepCondition waits until the sweep's condition has the given status and reason.
func waitSweepCondition(t testing.TB, sw *cbv1.BenchmarkSweep, condType string, status metav1.ConditionStatus, reason string) *cbv1.BenchmarkSweep {
	t.Helper()
	var got *cbv1.BenchmarkSweep
	play.Eventually(t, 30*time.Second, fmt.Sprintf("waiting for sweep %s=%s (%s)", condType, status, reason), func() error {
		got = getSweep(t, sw)
		c := meta.FindStatusCondition(got.Status.Conditions, condType)
		if c == nil {
			return fmt.Errorf("no condition yet; phase %q, progress %q, conditions %+v", got.Status.Phase, got.Status.Progress, got.Status.Conditions)
		}
		if c.Status != status || (reason != "" && c.Reason != reason) {
			return fmt.Errorf("%s is %s/%s: %s", condType, c.Status, c.Reason, c.Message)
		}
		return nil
	})
	return got
}

func sweepRuns(t testing.TB, sw *cbv1.BenchmarkSweep) []cbv1.BenchmarkRun {
	t.Helper()
	var list cbv1.BenchmarkRunList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(sw.Namespace),
		client.MatchingLabels{cbv1.SweepLabel: sw.Name}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitSweepRun waits for the sweep to create the named run, and checks that it is the only
// unfinished one: the sweep's runs go one at a time.
func waitSweepRun(t testing.TB, sw *cbv1.BenchmarkSweep, name string) *cbv1.BenchmarkRun {
	t.Helper()
	run := &cbv1.BenchmarkRun{}
	play.Eventually(t, 30*time.Second, "waiting for BenchmarkRun "+name, func() error {
		return env.Client.Get(context.Background(), client.ObjectKey{Namespace: sw.Namespace, Name: name}, run)
	})
	for _, other := range sweepRuns(t, sw) {
		if other.Name != name && meta.FindStatusCondition(other.Status.Conditions, cbv1.ConditionSucceeded) == nil {
			t.Fatalf("BenchmarkRun %s is unfinished while %s exists: runs must go one at a time", other.Name, name)
		}
	}
	return run
}

// playTuning plays cass-operator applying the run's datacenter patch.
func playTuning(t *testing.T, run *cbv1.BenchmarkRun, dc string) {
	t.Helper()
	// cass-operator finishes rolling the previous point's restore through the nodes: a run
	// checks and changes a datacenter only once it has settled.
	pl.Settle(t, builders.MakeDatacenter(dc, run.Namespace).Obj())
	if d := run.Spec.Datacenter; d != nil && d.Config != nil && d.Config.CassandraYaml != nil {
		pl.PassPreflight(t, run)
	}
	var patched int64
	play.Eventually(t, 30*time.Second, "waiting for "+run.Name+" to patch the datacenter", func() error {
		got := pl.Run(t, run)
		if got.Status.Datacenter == nil || got.Status.Datacenter.PatchedGeneration == 0 {
			return errNotYet
		}
		patched = got.Status.Datacenter.PatchedGeneration
		return nil
	})
	pl.OperatorApplies(t, builders.MakeDatacenter(dc, run.Namespace).Obj(), patched-1)
}

// finishRun plays setup and the writers of a run; writer 0 is killed when fail is set.
func finishRun(t *testing.T, run *cbv1.BenchmarkRun, writers int32, opsPerWriter int64, fail bool) {
	t.Helper()
	ns := run.Namespace
	setup := pl.WaitJob(t, ns, run.Name+"-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 1})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	job := pl.WaitJob(t, ns, run.Name+"-writer")
	pods := map[int32]play.PodResult{}
	var ok, failed []int32
	for i := range writers {
		if fail && i == 0 {
			pods[i] = play.PodResult{ExitCode: 137}
			failed = append(failed, i)
			continue
		}
		pods[i] = play.PodResult{Message: play.WriterSummary(t, i, writers, opsPerWriter, "")}
		ok = append(ok, i)
	}
	pl.Pods(t, job, pods)
	pl.FinishJob(t, job, ok, failed)
	want := metav1.ConditionTrue
	if fail {
		want = metav1.ConditionFalse
	}
	pl.WaitCondition(t, run, cbv1.ConditionSucceeded, want, "")
}

func TestSweepRunsItsPointsOneAtATimeAndTabulates(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))

	sw := builders.MakeSweep("cw", ns).
		Axis("datacenter.config.cassandra-yaml.concurrent_writes", 64, 128).
		Axis("writers.replicas", 1, 2).Obj()
	pl.Create(t, sw)

	// Point 1 fails; the sweep records it and goes on.
	points := []struct {
		concurrentWrites, writers int32
		ops                       int64
		fail                      bool
	}{{64, 1, 1000, false}, {64, 2, 0, true}, {128, 1, 3000, false}, {128, 2, 2000, false}}
	for i, p := range points {
		name := fmt.Sprintf("cw-%d-0", i)
		run := waitSweepRun(t, sw, name)
		if n := len(sweepRuns(t, sw)); n != i+1 {
			t.Fatalf("%d runs exist when %s started, want %d", n, name, i+1)
		}
		if run.Spec.Writers.Replicas != p.writers || run.Labels[cbv1.SweepPointLabel] != fmt.Sprint(i) {
			t.Errorf("%s: writers %d, labels %v", name, run.Spec.Writers.Replicas, run.Labels)
		}
		wantYaml := fmt.Sprintf(`{"concurrent_writes":%d}`, p.concurrentWrites)
		if got := run.Spec.Datacenter.Config.CassandraYaml; got == nil || !datacenter.SameJSON(got.Raw, json.RawMessage(wantYaml)) {
			t.Errorf("%s: cassandra-yaml %v, want %s", name, got, wantYaml)
		}
		// The sweep reports its running point while the run is under way.
		play.Eventually(t, 10*time.Second, "point running", func() error {
			got := getSweep(t, sw)
			if len(got.Status.Table) != 4 || got.Status.Table[i].Outcome != cbv1.PointRunning || got.Status.Phase != cbv1.PhaseRunning {
				return fmt.Errorf("phase %s table %+v", got.Status.Phase, got.Status.Table)
			}
			return nil
		})
		playTuning(t, run, "dc1")
		finishRun(t, run, p.writers, p.ops, p.fail)
	}

	got := waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonPointsFailed)
	if got.Status.Phase != cbv1.PhaseFailed || got.Status.Progress != "4/4 done, 1 failed" ||
		got.Status.Points != 4 || got.Status.Completed != 4 || got.Status.Failed != 1 {
		t.Errorf("phase %s progress %q points %d completed %d failed %d", got.Status.Phase, got.Status.Progress,
			got.Status.Points, got.Status.Completed, got.Status.Failed)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, cbv1.ConditionValid) {
		t.Errorf("not Valid: %+v", got.Status.Conditions)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, cbv1.ConditionStalled) || meta.IsStatusConditionTrue(got.Status.Conditions, cbv1.ConditionReady) {
		t.Errorf("kstatus conditions of a failed sweep: %+v", got.Status.Conditions)
	}
	if status, msg := argoHealth(t, got); status != "Degraded" || !strings.Contains(msg, "1 of 4 points failed") {
		t.Errorf("Argo CD health %s: %s, want Degraded naming the failed point", status, msg)
	}
	type row struct {
		Values  []string
		Runs    []string
		Outcome cbv1.PointOutcome
		Ops     int64
	}
	var rows []row
	for _, r := range got.Status.Table {
		rows = append(rows, row{r.Values, r.Runs, r.Outcome, r.OpsPerSecond})
		if r.Outcome == cbv1.PointSucceeded && (r.P50 == 0 || r.P99 < r.P50 || r.P999 < r.P99 || r.TimeoutRatio == "") {
			t.Errorf("point %d latencies: %+v", r.Point, r)
		}
	}
	// writerSummary makes each writer report ops operations over a 10 s window.
	want := []row{
		{[]string{"64", "1"}, []string{"cw-0-0"}, cbv1.PointSucceeded, 100},
		{[]string{"64", "2"}, []string{"cw-1-0"}, cbv1.PointFailed, 0},
		{[]string{"128", "1"}, []string{"cw-2-0"}, cbv1.PointSucceeded, 300},
		{[]string{"128", "2"}, []string{"cw-3-0"}, cbv1.PointSucceeded, 400},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	if msg := got.Status.Table[1].Message; !strings.Contains(msg, "cw-1-0") || !strings.Contains(msg, "137") {
		t.Errorf("failed point's message: %q", msg)
	}
	wantBest := &cbv1.SweepBest{Point: 3, Values: []string{"128", "2"}, By: cbv1.BestByOpsPerSecond,
		Summary: "datacenter.config.cassandra-yaml.concurrent_writes=128, writers.replicas=2 (400 ops/s)"}
	if diff := cmp.Diff(wantBest, got.Status.Best); diff != "" {
		t.Errorf("best (-want +got):\n%s", diff)
	}
	if d := pl.Datacenter(t, dc); !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("datacenter not given back after the sweep: %s %v", d.Spec.Config, d.Annotations)
	}

	// Deleting the sweep deletes its runs through the garbage collector, which envtest does not
	// run; so check what the collector acts on: every run is controlled by the sweep and blocks
	// the sweep's foreground deletion until it is gone.
	for _, run := range sweepRuns(t, sw) {
		ref := metav1.GetControllerOf(&run)
		if ref == nil || ref.UID != got.UID || ref.Kind != "BenchmarkSweep" || ref.Name != sw.Name ||
			ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("run %s owner references %+v", run.Name, run.OwnerReferences)
		}
	}
	assertSweepEvents(t, sw, cbv1.ReasonPointsValid, cbv1.ReasonPointStarted, cbv1.ReasonPointSucceeded,
		cbv1.ReasonPointFailed, cbv1.ReasonPointsFailed)
}

func TestSweepWithAnInvalidPointCreatesNothing(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))

	cases := map[string]struct {
		axes []cbv1.SweepAxis
		// want are phrases of the Valid condition's message.
		want []string
	}{
		"zero writers": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.replicas", 2, 0)},
			// The apiserver's own message, from the dry run of point 1.
			want: []string{"point 1 (writers.replicas=0)", "spec.writers.replicas", "greater than or equal to 1"},
		},
		"unknown profile": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.replicas", 1, 2), builders.Axis("schema.table.profile", "ip-by-city", "ip-by-town")},
			want: []string{"point 1 (writers.replicas=1, schema.table.profile=ip-by-town)", "spec.schema.table.profile", "Unsupported value"},
		},
		"no such field": {
			axes: []cbv1.SweepAxis{builders.Axis("writers.replica", 2)},
			want: []string{"point 0 (writers.replica=2)", `writers has no field "replica"`},
		},
		"wrong type": {
			axes: []cbv1.SweepAxis{builders.Axis("datacenter.size", "four")},
			want: []string{"datacenter.size: value four is not an integer"},
		},
	}
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			sw := builders.MakeSweep(fmt.Sprintf("bad-%d", i), ns).Axes(tc.axes...).Obj()
			pl.Create(t, sw)
			got := waitSweepCondition(t, sw, cbv1.ConditionValid, metav1.ConditionFalse, cbv1.ReasonInvalidPoint)
			msg := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionValid).Message
			for _, phrase := range tc.want {
				if !strings.Contains(msg, phrase) {
					t.Errorf("Valid message %q does not contain %q", msg, phrase)
				}
			}
			if got.Status.Phase != cbv1.PhaseFailed {
				t.Errorf("phase %s", got.Status.Phase)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	var runs cbv1.BenchmarkRunList
	if err := env.Client.List(context.Background(), &runs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(runs.Items) != 0 {
		t.Errorf("%d runs created by invalid sweeps", len(runs.Items))
	}
}

func TestSweepStopsOnFailureAndSurvivesARestart(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	cfg := managerConfig(t, ns)
	m := startManager(t, cfg)

	sw := builders.MakeSweep("stop", ns).Axis("workload.writeConsistency", "ONE", "QUORUM").Obj()
	sw.Spec.Repeats = 2
	sw.Spec.StopOnFailure = true
	pl.Create(t, sw)

	first := waitSweepRun(t, sw, "stop-0-0")
	// A manager restarted mid-sweep finds its runs by name and creates none twice.
	m.stop()
	startManager(t, cfg)
	finishRun(t, first, 1, 500, false)
	second := waitSweepRun(t, sw, "stop-0-1")
	if second.Spec.Workload.WriteConsistency != "ONE" {
		t.Errorf("repeat of point 0 has consistency %s", second.Spec.Workload.WriteConsistency)
	}
	finishRun(t, second, 1, 0, true)

	got := waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonStoppedOnFailure)
	if got.Status.Progress != "1/2 done, 1 failed, 1 skipped" {
		t.Errorf("progress %q", got.Status.Progress)
	}
	if o := []cbv1.PointOutcome{got.Status.Table[0].Outcome, got.Status.Table[1].Outcome}; o[0] != cbv1.PointFailed || o[1] != cbv1.PointSkipped {
		t.Errorf("outcomes %v", o)
	}
	if r := got.Status.Table[0]; r.Succeeded != 1 || r.Failed != 1 || r.OpsPerSecond != 50 {
		t.Errorf("point 0: %+v", r)
	}
	time.Sleep(500 * time.Millisecond)
	var names []string
	for _, run := range sweepRuns(t, sw) {
		names = append(names, run.Name)
	}
	if diff := cmp.Diff([]string{"stop-0-0", "stop-0-1"}, names); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "stop-1-0"}, &cbv1.BenchmarkRun{}); !apierrors.IsNotFound(err) {
		t.Errorf("point 1 ran after a failure with stopOnFailure: %v", err)
	}
}

// assertSweepEvents checks that the sweep's events include each reason.
func assertSweepEvents(t *testing.T, sw *cbv1.BenchmarkSweep, reasons ...string) {
	t.Helper()
	run := &cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: sw.Name, Namespace: sw.Namespace}}
	assertEvents(t, run, reasons...)
}
