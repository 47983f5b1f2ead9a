package datacenter

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A run across several datacenters names CassandraDatacenters that cass-operator joins into
// one Cassandra cluster because they share spec.clusterName, and a keyspace's replication
// names datacenters of that cluster. Neither can be checked by the CRD, which sees the run
// alone: these checks read the datacenters and refuse the run before it takes any.

// Keys are the datacenters a run names, in the order every run takes them: by namespace,
// then name. Two runs that need the same datacenters therefore ask for them in the same order,
// and neither can hold one while it waits for one the other holds.
func Keys(run *cbv1.BenchmarkRun) []types.NamespacedName {
	if len(run.Spec.Datacenters) == 0 {
		return []types.NamespacedName{Key(run)}
	}
	keys := make([]types.NamespacedName, 0, len(run.Spec.Datacenters))
	for _, d := range run.Spec.Datacenters {
		ns := d.Namespace
		if ns == "" {
			ns = run.Namespace
		}
		keys = append(keys, types.NamespacedName{Namespace: ns, Name: d.Name})
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].Name < keys[j].Name
	})
	return keys
}

// OtherCluster names the first of the run's datacenters that is in another Cassandra cluster
// than the first of spec.datacenters, by the field that names it; "" when they are all in
// one. named holds the datacenters in the order of spec.datacenters, nil for one not found
// (not judged).
func OtherCluster(run *cbv1.BenchmarkRun, named []*cassdcapi.CassandraDatacenter) string {
	var first *cassdcapi.CassandraDatacenter
	firstField := ""
	for i, dc := range named {
		if dc == nil {
			continue
		}
		field := fmt.Sprintf("spec.datacenters[%d]", i)
		if first == nil {
			first, firstField = dc, field
			continue
		}
		if dc.Spec.ClusterName != first.Spec.ClusterName {
			return fmt.Sprintf("%s: CassandraDatacenter %s/%s is in Cassandra cluster %q, but %s, CassandraDatacenter %s/%s, is in %q: "+
				"a run benchmarks datacenters of one cluster (those that share spec.clusterName); name datacenters of one cluster",
				field, dc.Namespace, dc.Name, dc.Spec.ClusterName, firstField, first.Namespace, first.Name, first.Spec.ClusterName)
		}
	}
	return ""
}

// ReplicationOutsideCluster names the first datacenter of schema.replication.datacenters
// that is not a CassandraDatacenter of the cluster, by its field; "" when every one is.
// cluster holds the CassandraDatacenters the manager sees; those of other clusters are
// skipped.
func ReplicationOutsideCluster(run *cbv1.BenchmarkRun, clusterName string, cluster []cassdcapi.CassandraDatacenter) string {
	var names []string
	for i := range cluster {
		if cluster[i].Spec.ClusterName == clusterName {
			names = append(names, cluster[i].Name)
		}
	}
	sort.Strings(names)
	names = slices.Compact(names)
	for i, r := range run.Spec.Schema.Replication.Datacenters {
		if slices.Contains(names, r.Name) {
			continue
		}
		return fmt.Sprintf("schema.replication.datacenters[%d].name: %s is not a datacenter of Cassandra cluster %q, whose CassandraDatacenters are %s: "+
			"Cassandra refuses a keyspace replicated to a datacenter it does not know; name datacenters of the cluster",
			i, r.Name, clusterName, strings.Join(names, ", "))
	}
	return ""
}
