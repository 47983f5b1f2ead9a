package controllers_test

import (
	"strings"
	"testing"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A run across both datacenters of cluster c1 whose keyspace is replicated to dc3 as well,
// a CassandraDatacenter of another cluster: the apiserver admits it (the CRD cannot see
// which datacenters a cluster has), and the manager fails it with a message naming the
// field and the cluster's datacenters, before it locks or changes either of them and
// before any Job.
func TestRunReplicatedOutsideItsClusterFailsBeforeEitherDatacenterIsTouched(t *testing.T) {
	ns := env.Namespace(t)
	dc1, dc2 := readyDatacenter(t, ns, "dc1", 3), readyDatacenter(t, ns, "dc2", 3)
	other := builders.MakeDatacenter("dc3", ns).Cluster("c2").Size(1).Config(originalConfig).AllowBenchmarks("true").Obj()
	pl.Create(t, other)
	pl.Settle(t, other)
	gen1, gen2 := pl.Datacenter(t, dc1).Generation, pl.Datacenter(t, dc2).Generation
	startManager(t, managerConfig(t, ns))

	run := across("outside", ns).Size(4).Obj()
	run.Spec.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy,
		Datacenters: []cbv1.DatacenterReplication{{Name: "dc1", Factor: 1}, {Name: "dc2", Factor: 1}, {Name: "dc3", Factor: 1}}}
	pl.Create(t, run)

	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonInvalidSpec)
	want := `schema.replication.datacenters[2].name: dc3 is not a datacenter of Cassandra cluster "c1", whose CassandraDatacenters are dc1, dc2`
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, want) || !strings.Contains(c.Message, "no datacenter was changed") {
		t.Errorf("Succeeded %s: %s; want a message containing %q", c.Reason, c.Message, want)
	}
	if c := findCond(got, cbv1.ConditionDatacenterReady); c.Status != metav1.ConditionFalse || c.Reason != cbv1.ReasonInvalidSpec {
		t.Errorf("DatacenterReady %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if len(got.Status.Datacenters) != 0 {
		t.Errorf("status.datacenters %+v: nothing was taken", got.Status.Datacenters)
	}
	for _, c := range []struct {
		dc  *cassdcapi.CassandraDatacenter
		gen int64
	}{{dc1, gen1}, {dc2, gen2}} {
		d := pl.Datacenter(t, c.dc)
		if d.Generation != c.gen || d.Spec.Size != 3 || d.Annotations[cbv1.LockAnnotation] != "" {
			t.Errorf("%s touched: generation %d -> %d, size %d, lock %q", c.dc.Name, c.gen, d.Generation, d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
		}
	}
	if n := pl.CountJobs(t, ns); n != 0 {
		t.Errorf("%d Jobs were created", n)
	}
}
