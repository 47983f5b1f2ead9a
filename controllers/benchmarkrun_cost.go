package controllers

import (
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cost"
)

// priceResults gives r its cost at the run's prices, or at the manager's (fallback) when the
// run gives none, from the datacenter's resource requests and size while the run holds it and
// the writers' requests; nothing without prices, and a note where the manager's could not be
// read.
func priceResults(run *cbv1.BenchmarkRun, fallback defaultPricing, dc *cassdcapi.CassandraDatacenter, r *cbv1.Results) {
	if r == nil || dc == nil {
		return
	}
	p, by := run.Spec.Pricing, "spec.pricing"
	if p == nil {
		p, by = fallback.pricing, fallback.by
	}
	if p == nil {
		if fallback.note != "" {
			r.Cost = cost.NotPriced(fallback.by, fallback.note)
		}
		return
	}
	r.Cost = cost.Of(p, cost.Priced{
		Nodes: dc.Spec.Size, Node: dc.Spec.Resources,
		Writers: run.Spec.Writers.Replicas, Writer: run.Spec.Writers.Resources,
		OpsPerSecond: r.OpsPerSecond,
	})
	r.Cost.PricedBy = by
}
