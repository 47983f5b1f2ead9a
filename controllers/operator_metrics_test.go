package controllers_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/opmetrics"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// The operator's metrics, read from the manager's metrics endpoint as Prometheus reads them,
// say what happened: a sweep with restore atEnd holds the datacenter while a run queues
// behind it, then three runs (the sweep's two points and the queued run) finish, and the
// histograms grow by exactly their hold and restore times. The endpoint is plain HTTP here;
// test/packaging checks that the chart's endpoint is authenticated.
func TestOperatorMetricsMatchWhatHappened(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	addr := freeAddress(t)
	startManagerWith(t, managerConfig(t, ns), controllers.Options{MetricsAddr: addr})
	before := scrape(t, addr, ns)

	sw := atEndSweep("metered", ns, 1, 2)
	pl.Create(t, sw)
	waitSweepLock(t, "dc1", ns, "sweep:"+ns+"/metered")
	time.Sleep(1100 * time.Millisecond) // creation timestamps have one-second resolution
	outsider := builders.MakeBenchmarkRun("outsider", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, outsider)
	pl.WaitCondition(t, outsider, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy)

	first := waitSweepRun(t, sw, "metered-0-0")
	playTuning(t, first, "dc1")
	locked := time.Since(getSweep(t, sw).CreationTimestamp.Time).Seconds()
	during := scrape(t, addr, ns)
	if got := gauge(t, during, opmetrics.QueueDepthName, map[string]string{"namespace": ns, "datacenter": "dc1"}); got != 1 {
		t.Errorf("queue depth %v while the outsider waits, want 1", got)
	}
	if got := gauge(t, during, opmetrics.RunsName, map[string]string{"namespace": ns, "phase": string(cbv1.PhaseQueued)}); got != 1 {
		t.Errorf("%v runs Queued, want 1 (the outsider)", got)
	}
	if got := gauge(t, during, opmetrics.SweepsName, map[string]string{"namespace": ns, "phase": string(cbv1.PhaseRunning)}); got != 1 {
		t.Errorf("%v sweeps Running, want 1", got)
	}
	held := gauge(t, during, opmetrics.LockedName, map[string]string{"namespace": ns, "datacenter": "dc1", "holder_kind": "BenchmarkSweep"})
	if held < 0 || held > locked+2 {
		t.Errorf("lock held for %vs by the sweep, want between 0 and %vs (since the sweep was created)", held, locked+2)
	}

	finishRun(t, first, 1, 1000, false)
	finishRun(t, waitSweepRun(t, sw, "metered-1-0"), 2, 1000, false)
	waitSweepCondition(t, sw, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	pl.Settle(t, dc)
	waitSweepLock(t, "dc1", ns, ns+"/outsider")
	finishRun(t, outsider, 1, 1000, false)
	waitSweepLock(t, "dc1", ns, "")

	var runs cbv1.BenchmarkRunList
	if err := env.Client.List(context.Background(), &runs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var wantHold, wantRestore float64
	for i := range runs.Items {
		r := &runs.Items[i]
		if r.Status.StartTime == nil || r.Status.CompletionTime == nil {
			t.Fatalf("run %s has startTime %v completionTime %v", r.Name, r.Status.StartTime, r.Status.CompletionTime)
		}
		wantHold += r.Status.CompletionTime.Sub(r.Status.StartTime.Time).Seconds()
		_, restore, _ := opmetrics.Durations(r)
		wantRestore += restore.Seconds()
	}
	if len(runs.Items) != 3 {
		t.Fatalf("%d runs, want 3", len(runs.Items))
	}

	after := scrape(t, addr, ns)
	for name, want := range map[string]float64{opmetrics.LockHoldName: wantHold, opmetrics.RestoreDurationName: wantRestore} {
		h0, h1 := histogram(t, before, name), histogram(t, after, name)
		if n := h1.GetSampleCount() - h0.GetSampleCount(); n != 3 {
			t.Errorf("%s: %d observations since the start, want 3", name, n)
		}
		if got := h1.GetSampleSum() - h0.GetSampleSum(); math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: the observations sum to %vs, want %vs from the runs' status", name, got, want)
		}
	}
	if wantRestore > wantHold {
		t.Errorf("restores took %vs, longer than the holds (%vs)", wantRestore, wantHold)
	}
	for phase, want := range map[cbv1.Phase]float64{cbv1.PhaseSucceeded: 3, cbv1.PhaseQueued: 0, cbv1.PhaseRunning: 0, cbv1.PhaseFailed: 0} {
		if got := gauge(t, after, opmetrics.RunsName, map[string]string{"namespace": ns, "phase": string(phase)}); got != want {
			t.Errorf("%v runs %s at the end, want %v", got, phase, want)
		}
	}
	if got := gauge(t, after, opmetrics.SweepsName, map[string]string{"namespace": ns, "phase": string(cbv1.PhaseSucceeded)}); got != 1 {
		t.Errorf("%v sweeps Succeeded, want 1", got)
	}
	if got := gauge(t, after, opmetrics.QueueDepthName, map[string]string{"namespace": ns, "datacenter": "dc1"}); got != 0 {
		t.Errorf("queue depth %v at the end, want 0", got)
	}
	if m := find(after, opmetrics.LockedName, map[string]string{"namespace": ns, "datacenter": "dc1"}); m != nil {
		t.Errorf("the datacenter is unlocked, but its lock gauge reads %v", m.GetGauge().GetValue())
	}
}

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// scrape reads the metrics endpoint as Prometheus does, waiting for it to listen and for the
// collector to read the manager's synced cache (which has the namespace's datacenter).
func scrape(t *testing.T, addr, ns string) map[string]*dto.MetricFamily {
	t.Helper()
	var families map[string]*dto.MetricFamily
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			last = err
			continue
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err = parser.TextToMetricFamilies(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("parsing the metrics: %v", err)
		}
		if find(families, opmetrics.QueueDepthName, map[string]string{"namespace": ns}) != nil {
			return families
		}
		last = fmt.Errorf("no %s of namespace %s among %d families", opmetrics.QueueDepthName, ns, len(families))
	}
	t.Fatalf("scraping %s: %v", addr, last)
	return nil
}

// find is the series of a family whose labels include the given ones.
func find(families map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	for _, m := range families[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			match = match && have[k] == v
		}
		if match {
			return m
		}
	}
	return nil
}

func gauge(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	m := find(families, name, labels)
	if m == nil {
		var series []string
		for _, m := range families[name].GetMetric() {
			series = append(series, m.String())
		}
		t.Fatalf("no %s%v; the series are:\n%s", name, labels, strings.Join(series, "\n"))
	}
	return m.GetGauge().GetValue()
}

func histogram(t *testing.T, families map[string]*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	ms := families[name].GetMetric()
	if len(ms) != 1 {
		t.Fatalf("%s has %d series, want 1", name, len(ms))
	}
	return ms[0].GetHistogram()
}
