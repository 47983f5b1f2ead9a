package datacenter

import (
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Allows tells whether the datacenter opted in to runs from the given namespace, and if not,
// a sentence saying what the datacenter's owner must do.
func Allows(dc *cassdcapi.CassandraDatacenter, runNamespace string) (bool, string, string) {
	value, ok := dc.Annotations[cbv1.AllowBenchmarksAnnotation]
	if !ok {
		return false, cbv1.ReasonDatacenterNotOptedIn, "CassandraDatacenter " + dc.Namespace + "/" + dc.Name +
			" has not opted in to benchmarks: annotate it with " + cbv1.AllowBenchmarksAnnotation + `="true"`
	}
	value = strings.TrimSpace(value)
	if strings.EqualFold(value, "true") {
		if runNamespace == dc.Namespace {
			return true, "", ""
		}
	} else if strings.EqualFold(value, "false") || value == "" {
		return false, cbv1.ReasonDatacenterNotOptedIn, "CassandraDatacenter " + dc.Namespace + "/" + dc.Name +
			" has " + cbv1.AllowBenchmarksAnnotation + `="` + value + `"; set it to "true" to allow benchmarks`
	} else {
		for _, ns := range strings.Split(value, ",") {
			ns = strings.TrimSpace(ns)
			if ns == "*" || ns == runNamespace {
				return true, "", ""
			}
		}
	}
	return false, cbv1.ReasonNamespaceNotAllowed, "CassandraDatacenter " + dc.Namespace + "/" + dc.Name +
		" does not allow runs from namespace " + runNamespace + ": add it to the " +
		cbv1.AllowBenchmarksAnnotation + " annotation as a comma-separated list (e.g. \"" + dc.Namespace + "," + runNamespace + "\")"
}
