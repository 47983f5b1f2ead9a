package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// TestPriceResults: a priced run's results get the cost of the datacenter's nodes as the run
// holds it, and of the writers apart; an unpriced run's get none.
func TestPriceResults(t *testing.T) {
	dc := builders.MakeDatacenter("dc1", "default").Size(3).Apply(func(d *cassdcapi.CassandraDatacenter) {
		d.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	}).Obj()
	run := builders.MakeBenchmarkRun("r", "default").Writers(2).Obj()
	run.Spec.Writers.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}

	r := &cbv1.Results{OpsPerSecond: 5000}
	priceResults(run, dc, r)
	if r.Cost != nil {
		t.Fatalf("cost without prices: %+v", r.Cost)
	}
	run.Spec.Pricing = &cbv1.Pricing{PerCoreHour: "0.05", PerGiBHour: "0.01", Currency: "USD"}
	priceResults(run, dc, r)
	// A node 2 × 0.05 + 8 × 0.01 = 0.18, three 0.54 an hour for 18M operations: 0.03 a
	// million; a writer 0.05, two 0.1: 0.005556 a million.
	want := &cbv1.CostResults{Currency: "USD", DatacenterPerHour: "0.54", PerMillionOperations: "0.03",
		WritersPerHour: "0.1", WritersPerMillionOperations: "0.005556"}
	if diff := cmp.Diff(want, r.Cost); diff != "" {
		t.Errorf("cost (-want +got):\n%s", diff)
	}
}
