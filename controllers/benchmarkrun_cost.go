package controllers

import (
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cost"
)

// priceResults gives r its cost at the run's prices, from the datacenter's resource requests
// and size while the run holds it and the writers' requests; nothing without prices.
func priceResults(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, r *cbv1.Results) {
	if r == nil || run.Spec.Pricing == nil || dc == nil {
		return
	}
	r.Cost = cost.Of(run.Spec.Pricing, cost.Priced{
		Nodes: dc.Spec.Size, Node: dc.Spec.Resources,
		Writers: run.Spec.Writers.Replicas, Writer: run.Spec.Writers.Resources,
		OpsPerSecond: r.OpsPerSecond,
	})
}
