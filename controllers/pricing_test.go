package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// A team sets its prices once, in the manager's pricing ConfigMap: a run that gives no
// spec.pricing is priced by it and says so; a run's own prices win; and when the ConfigMap is
// gone, the run still succeeds, its cost a note that names the ConfigMap and what to do.
func TestManagersPricingConfigMapPricesRunsWithoutTheirOwn(t *testing.T) {
	ns := env.Namespace(t)
	dc := builders.MakeDatacenter("dc1", ns).Cluster("c1").Size(3).Config(originalConfig).AllowBenchmarks("true").
		Apply(func(d *cassdcapi.CassandraDatacenter) {
			d.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}
		}).Obj()
	pl.Create(t, dc)
	pl.Settle(t, dc)
	prices := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cassbench-pricing", Namespace: ns},
		Data: map[string]string{controllers.PricingKey: "perCoreHour: \"0.05\"\nperGiBHour: \"0.01\"\ncurrency: EUR\n"}}
	pl.Create(t, prices)
	startManagerWith(t, managerConfig(t, ns), controllers.Options{MetricsAddr: "0",
		PricingConfigMap: types.NamespacedName{Namespace: ns, Name: "cassbench-pricing"}})

	// A node 2 × 0.05 + 8 × 0.01 = 0.18 an hour, three 0.54; 6,000 ops/s are 21.6M an hour.
	byConfigMap := runToTheEnd(t, ns, "by-configmap", nil)
	want := cbv1.CostResults{Currency: "EUR", DatacenterPerHour: "0.54", PerMillionOperations: "0.025",
		PricedBy: "ConfigMap " + ns + "/cassbench-pricing", Note: "not priced: the writers: no CPU or memory requested to price"}
	if c := byConfigMap.Status.Results.Cost; c == nil || *c != want {
		t.Errorf("cost at the ConfigMap's prices %+v, want %+v", c, want)
	}

	own := runToTheEnd(t, ns, "own-prices", &cbv1.Pricing{PerNodeHour: "1.2"})
	if c := own.Status.Results.Cost; c == nil || c.PricedBy != "spec.pricing" || c.DatacenterPerHour != "3.6" || c.Currency != "USD" {
		t.Errorf("cost at the run's own prices %+v, want 3 nodes × 1.2 USD by spec.pricing", c)
	}

	if err := pl.C.Delete(context.Background(), prices); err != nil {
		t.Fatal(err)
	}
	gone := runToTheEnd(t, ns, "configmap-gone", nil)
	if c := gone.Status.Results.Cost; c == nil || c.DatacenterPerHour != "" ||
		!strings.Contains(c.Note, "pricing ConfigMap "+ns+"/cassbench-pricing is not there (create it with key pricing.yaml, or give spec.pricing)") {
		t.Errorf("cost with the ConfigMap gone %+v, want a note naming it", c)
	}
}

// runToTheEnd runs a one-writer run of the datacenter dc1 at pricing to Succeeded, the
// datacenter unchanged, and returns it.
func runToTheEnd(t *testing.T, ns, name string, pricing *cbv1.Pricing) *cbv1.BenchmarkRun {
	t.Helper()
	run := builders.MakeBenchmarkRun(name, ns).Datacenter("dc1").Writers(1).Duration(20 * time.Second).Obj()
	run.Spec.Pricing = pricing
	pl.Create(t, run) // it changes nothing: no preflight before its setup
	setup := pl.WaitJob(t, ns, name+"-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 3})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	writers := pl.WaitJob(t, ns, name+"-writer")
	pl.JobRunning(t, writers, 1)
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 1, 60000, "")}})
	pl.FinishJob(t, writers, []int32{0}, nil)
	return pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
}
