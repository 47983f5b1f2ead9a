package controllers

import (
	"strings"
	"testing"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// Runs across datacenters, and keyspaces replicated per datacenter: what decide refuses before
// it takes anything.
func TestDecideAcrossDatacenters(t *testing.T) {
	testDecide(t, map[string]decideCase{
		"a run across several datacenters fails before it looks for any, until this manager takes several": {
			o:     observed(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 1}, cbv1.RunDatacenter{Name: "dc2"}).Obj(), nil),
			conds: conds(dcReadyCond, "False/InvalidSpec")},
		"a run across datacenters of two clusters fails naming the odd one out": {
			o: with(observed(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2"}).Obj(), nil), func(o *observation) {
				o.named = []*cassdcapi.CassandraDatacenter{aDC().Obj(), builders.MakeDatacenter("dc2", "bench").Cluster("other").Obj()}
			}),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, `spec.datacenters[1]: CassandraDatacenter bench/dc2 is in Cassandra cluster "other"`)},
		"a run across datacenters replicated to one outside their cluster fails naming the entry": {
			o: with(observed(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2"}).
				Apply(replicatedTo("dc1", "dc2", "dc3")).Obj(), nil), func(o *observation) {
				dc2 := builders.MakeDatacenter("dc2", "bench").Cluster("c1").Obj()
				o.named = []*cassdcapi.CassandraDatacenter{aDC().Obj(), dc2}
				o.clusterDCs = []cassdcapi.CassandraDatacenter{*aDC().Obj(), *dc2, *builders.MakeDatacenter("dc3", "bench").Cluster("c2").Obj()}
			}),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, "schema.replication.datacenters[2].name: dc3 is not a datacenter of Cassandra cluster \"c1\"")},
		"a run replicated to a datacenter outside its cluster fails before it takes its own": {
			o: with(observed(aRun().Apply(replicatedTo("dc1", "east")).Obj(), aDC().Obj()), func(o *observation) {
				o.clusterDCs = []cassdcapi.CassandraDatacenter{*aDC().Obj()}
			}),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, "schema.replication.datacenters[1].name: east")},
		"a run replicated to another datacenter of its cluster takes its own": {
			o: with(observed(aRun().Apply(replicatedTo("dc1", "dc2")).Obj(), aDC().Obj()), func(o *observation) {
				o.clusterDCs = []cassdcapi.CassandraDatacenter{*aDC().Obj(), *builders.MakeDatacenter("dc2", "db").Cluster("c1").Obj()}
			}),
			dc: "lock=bench/r"},
	})
}

// replicatedTo replicates the run's keyspace once to each named datacenter.
func replicatedTo(names ...string) func(*cbv1.BenchmarkRun) {
	return func(r *cbv1.BenchmarkRun) {
		r.Spec.Schema.Replication.Strategy = cbv1.NetworkTopologyStrategy
		for _, n := range names {
			r.Spec.Schema.Replication.Datacenters = append(r.Spec.Schema.Replication.Datacenters, cbv1.DatacenterReplication{Name: n, Factor: 1})
		}
	}
}

// messageHas checks that the condition's message holds want.
func messageHas(condition, want string) func(*testing.T, step) {
	return func(t *testing.T, s step) {
		if c := meta.FindStatusCondition(s.status.Conditions, condition); c == nil || !strings.Contains(c.Message, want) {
			t.Errorf("%s: %+v; want a message containing %q", condition, c, want)
		}
	}
}
