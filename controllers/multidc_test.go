package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// Runs across two CassandraDatacenters of one cluster (c1), with the manager against a real
// apiserver; cass-operator, the Job controller and the kubelet are played, as in every test of
// this package.

// across is a run of the two datacenters, listed dc2 first: one writer in dc2, two in dc1.
func across(name, ns string) *builders.BenchmarkRunBuilder {
	return builders.MakeBenchmarkRun(name, ns).Writers(3).Duration(time.Second).
		Datacenters(cbv1.RunDatacenter{Name: "dc2", Writers: 1}, cbv1.RunDatacenter{Name: "dc1", Writers: 2})
}

// envOf is the value of a variable of the Job's container; "" when it has none.
func envOf(job *batchv1.Job, name string) string {
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// givenBack checks that the datacenter has its original size and config and no lock.
func givenBack(t *testing.T, dc *cassdcapi.CassandraDatacenter) {
	t.Helper()
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 3 || !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("%s not given back: size %d config %s", dc.Name, d.Spec.Size, d.Spec.Config)
	}
	if holder, locked := d.Annotations[cbv1.LockAnnotation]; locked {
		t.Errorf("%s still locked by %s", dc.Name, holder)
	}
}

// A run across two datacenters takes both (dc1 first, whatever the spec's order), records
// each one's originals, sizes and tunes each, runs setup against all their nodes and each
// writer in its own datacenter, succeeds, and gives both back exactly.
func TestRunAcrossTwoDatacentersSucceedsAndGivesBothBack(t *testing.T) {
	ns := env.Namespace(t)
	dc1, dc2 := readyDatacenter(t, ns, "dc1", 3), readyDatacenter(t, ns, "dc2", 3)
	startManager(t, managerConfig(t, ns))
	gen1, gen2 := pl.Datacenter(t, dc1).Generation, pl.Datacenter(t, dc2).Generation

	run := across("across", ns).Size(4).CassandraYaml(map[string]any{"concurrent_writes": 128}).Obj()
	pl.Create(t, run)
	pl.PassPreflight(t, run)
	// Neither patch waits for the other datacenter to be ready: cass-operator rolls both at once.
	play.Eventually(t, 30*time.Second, "both datacenters patched before either is ready", func() error {
		if g1, g2 := pl.Datacenter(t, dc1).Generation, pl.Datacenter(t, dc2).Generation; g1 <= gen1 || g2 <= gen2 {
			return fmt.Errorf("generations %d and %d", g1, g2)
		}
		return nil
	})
	pl.OperatorApplies(t, dc1, gen1)
	pl.OperatorApplies(t, dc2, gen2)

	got := pl.Run(t, run)
	var recorded []string
	for _, rec := range got.Status.Datacenters {
		recorded = append(recorded, fmt.Sprintf("%s/%s:%d", rec.Namespace, rec.Name, *rec.OriginalSize))
		if !datacenter.SameJSON(rec.OriginalConfig.Raw, json.RawMessage(originalConfig)) {
			t.Errorf("%s: original config %s", rec.Name, rec.OriginalConfig.Raw)
		}
	}
	if want := []string{ns + "/dc1:3", ns + "/dc2:3"}; strings.Join(recorded, " ") != strings.Join(want, " ") {
		t.Errorf("status.datacenters %v, want %v", recorded, want)
	}
	for _, dc := range []*cassdcapi.CassandraDatacenter{dc1, dc2} {
		d := pl.Datacenter(t, dc)
		if d.Spec.Size != 4 || d.Annotations[cbv1.LockAnnotation] != ns+"/across" {
			t.Errorf("%s during the run: size %d lock %q", dc.Name, d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
		}
	}

	setup := pl.WaitJob(t, ns, "across-setup")
	if n := envOf(setup, podenv.ExpectNodes); n != "8" {
		t.Errorf("setup waits for %s nodes, want the 8 of both datacenters", n)
	}
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 8})}})
	pl.FinishJob(t, setup, []int32{0}, nil)

	writers := pl.WaitJob(t, ns, "across-writer")
	placement, err := podenv.ParsePlacement(envOf(writers, podenv.Placement))
	if err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, p := range placement {
		where = append(where, fmt.Sprintf("%s=%s@%s:%d", p.Name, p.Datacenter, p.Host, p.Port))
	}
	want := []string{"dc1=dc1@c1-dc1-service." + ns + ".svc:9042", "dc2=dc2@c1-dc2-service." + ns + ".svc:9042"}
	if strings.Join(where, ",") != strings.Join(want, ",") {
		t.Errorf("placement %v, want %v", where, want)
	}
	pl.Pods(t, writers, map[int32]play.PodResult{
		0: {Message: play.WriterSummary(t, 0, 3, 1000, "")},
		1: {Message: play.WriterSummary(t, 1, 3, 1000, "")},
		2: {Message: play.WriterSummary(t, 2, 3, 1000, "")},
	})
	pl.FinishJob(t, writers, []int32{0, 1, 2}, nil)

	done := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	if r := done.Status.Results; r == nil || r.Operations != 3000 || r.WritersReported != 3 {
		t.Errorf("results %+v", r)
	}
	// Writer 0 ran in dc2, the first of spec.datacenters, writers 1 and 2 in dc1.
	var perDC []string
	if r := done.Status.Results; r != nil {
		for _, d := range r.Datacenters {
			perDC = append(perDC, fmt.Sprintf("%s:%d writers:%d ops", d.Name, d.WritersReported, d.Operations))
		}
	}
	if want := []string{"dc2:1 writers:1000 ops", "dc1:2 writers:2000 ops"}; strings.Join(perDC, ",") != strings.Join(want, ",") {
		t.Errorf("results per datacenter %v, want %v", perDC, want)
	}
	if c := findCond(done, cbv1.ConditionDatacenterRestored); c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, ns+"/dc1") || !strings.Contains(c.Message, ns+"/dc2") {
		t.Errorf("DatacenterRestored %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	givenBack(t, dc1)
	givenBack(t, dc2)
}

// Two runs that each need both datacenters, listing them in opposite orders, created
// together: one takes both and runs while the other holds neither, then the other takes both.
// At no point do they hold one each.
func TestTwoRunsNeedingBothDatacentersBothFinish(t *testing.T) {
	ns := env.Namespace(t)
	dc1, dc2 := readyDatacenter(t, ns, "dc1", 3), readyDatacenter(t, ns, "dc2", 3)
	startManager(t, managerConfig(t, ns))
	a := builders.MakeBenchmarkRun("a", ns).Size(4).Writers(1).Duration(time.Second).
		Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 1}, cbv1.RunDatacenter{Name: "dc2"}).Obj()
	b := builders.MakeBenchmarkRun("b", ns).Size(4).Writers(1).Duration(time.Second).
		Datacenters(cbv1.RunDatacenter{Name: "dc2", Writers: 1}, cbv1.RunDatacenter{Name: "dc1"}).Obj()
	pl.Create(t, a, b)

	ap := &autopilot{ns: ns, writers: 1, played: map[string]bool{}}
	deadline := time.Now().Add(90 * time.Second)
	var order []string
	for len(order) < 2 {
		ap.step(t)
		l1, l2 := pl.Datacenter(t, dc1).Annotations[cbv1.LockAnnotation], pl.Datacenter(t, dc2).Annotations[cbv1.LockAnnotation]
		if l1 != "" && l2 != "" && l1 != l2 {
			t.Fatalf("the runs hold one datacenter each: dc1 %s, dc2 %s", l1, l2)
		}
		for _, r := range []*cbv1.BenchmarkRun{a, b} {
			got := pl.Run(t, r)
			if meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded) != nil && !strings.Contains(strings.Join(order, ","), r.Name) {
				order = append(order, r.Name)
				if c := findCond(got, cbv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
					t.Fatalf("%s: Succeeded %s/%s: %s", r.Name, c.Status, c.Reason, c.Message)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("finished %v; a %+v; b %+v", order, pl.Run(t, a).Status.Conditions, pl.Run(t, b).Status.Conditions)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("finished in order %v", order)
	givenBack(t, dc1)
	givenBack(t, dc2)
}

// multiCrashScenario: dc2 is held by another run (blocker, which stays in setup), and a run
// across dc1 and dc2 takes dc1 and waits for dc2, the manager killed right after the write at
// (the zero point: never) and restarted. Then the manager is killed again, the run deleted
// while it is down, and a new manager gives back dc1, exactly, and leaves dc2 to the blocker.
func multiCrashScenario(t *testing.T, at crashPoint) ([]crashPoint, bool) {
	ns := env.Namespace(t)
	dc1, dc2 := readyDatacenter(t, ns, "dc1", 3), readyDatacenter(t, ns, "dc2", 3)
	blocker := builders.MakeBenchmarkRun("blocker", ns).Datacenter("dc2").Writers(1).Duration(time.Hour).Obj()
	cfg := managerConfig(t, ns)
	first := startManager(t, cfg)
	pl.Create(t, blocker)
	pl.WaitJob(t, ns, "blocker-setup")
	first.stop()

	m, cc := startCrashingManager(t, cfg, at, ns)
	run := across("across", ns).Size(4).Obj()
	pl.Create(t, run)
	restarted := false
	play.Eventually(t, 40*time.Second, "the run holds dc1 and waits for dc2", func() error {
		select {
		case <-cc.crashed:
			if !restarted {
				m.stop()
				m = startManager(t, cfg)
				restarted = true
			}
		default:
		}
		got := pl.Run(t, run)
		c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterReady)
		if c == nil || c.Reason != cbv1.ReasonDatacenterBusy || len(got.Status.Datacenters) != 1 {
			return fmt.Errorf("conditions %+v, datacenters %+v", got.Status.Conditions, got.Status.Datacenters)
		}
		if l := pl.Datacenter(t, dc1).Annotations[cbv1.LockAnnotation]; l != ns+"/across" {
			return fmt.Errorf("dc1 locked by %q", l)
		}
		return nil
	})
	if got := pl.Run(t, run).Status.Datacenters[0]; got.Name != "dc1" || *got.OriginalSize != 3 {
		t.Errorf("recorded %s with size %d, want dc1's 3", got.Name, *got.OriginalSize)
	}
	m.stop()
	if err := env.Client.Delete(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	startManager(t, cfg)
	play.Eventually(t, 30*time.Second, "the deleted run is gone", func() error {
		var got cbv1.BenchmarkRun
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(run), &got)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%w): %+v", err, got.Status.Conditions)
	})
	givenBack(t, dc1)
	if d := pl.Datacenter(t, dc2); d.Annotations[cbv1.LockAnnotation] != ns+"/blocker" || d.Spec.Size != 3 {
		t.Errorf("dc2, the blocker's, was touched: lock %q size %d", d.Annotations[cbv1.LockAnnotation], d.Spec.Size)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return append([]crashPoint(nil), cc.writes...), restarted
}

// TestCrashWhileHoldingOneOfTwoDatacenters kills the manager after each write a run across
// two datacenters makes until it holds the first and waits for the second, and checks that,
// deleted, it gives back the first exactly and leaves the second to its holder.
func TestCrashWhileHoldingOneOfTwoDatacenters(t *testing.T) {
	var writes []crashPoint
	t.Run("no crash", func(t *testing.T) { writes, _ = multiCrashScenario(t, crashPoint{}) })
	if len(writes) == 0 {
		t.Fatal("no writes counted")
	}
	covered, kinds := 0, map[string]bool{}
	for _, at := range writes {
		died := false
		t.Run("after "+at.String(), func(t *testing.T) { _, died = multiCrashScenario(t, at) })
		if died {
			covered++
			kinds[at.what] = true
		}
	}
	t.Logf("%d of %d crash points covered", covered, len(writes))
	for _, w := range writes {
		if !kinds[w.what] {
			t.Errorf("no crash after any %q", w.what)
		}
	}
}
