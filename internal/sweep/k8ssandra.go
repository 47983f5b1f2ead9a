package sweep

import (
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// k8ssandraRefusal refuses a sweep with a point that would change a datacenter a
// K8ssandraCluster manages, naming the first such point: the sweep refuses as a whole, before
// it locks the datacenter, rather than lock it and fail its points one by one.
func k8ssandraRefusal(sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter) (string, string) {
	const advice = "; for a sweep: no spec.template.datacenter size or config and no axis on datacenter.size or datacenter.config"
	points, err := Expand(&sw.Spec)
	if err != nil {
		// The controller fails a sweep whose axes do not expand before it takes a
		// datacenter; the template alone is still judged.
		if reason, msg := datacenter.K8ssandraManaged(dc, sw.Spec.Template.Datacenter, "the sweep's template"); reason != "" {
			return reason, msg + advice
		}
		return "", ""
	}
	for _, p := range points {
		spec, err := Apply(&sw.Spec.Template, sw.Spec.Axes, p)
		if err != nil {
			continue // the same: such a sweep is failed as invalid first
		}
		if reason, msg := datacenter.K8ssandraManaged(dc, spec.Datacenter, "the sweep's "+Describe(sw.Spec.Axes, p)); reason != "" {
			return reason, msg + advice
		}
	}
	return "", ""
}
