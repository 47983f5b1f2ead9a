package datacenter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func inCluster(namespace, name, cluster string) cassdcapi.CassandraDatacenter {
	return cassdcapi.CassandraDatacenter{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: cassdcapi.CassandraDatacenterSpec{ClusterName: cluster}}
}

// Every run takes its datacenters by namespace, then name, whatever order its spec lists them
// in; a run with one datacenter takes that one.
func TestKeysAreInOneOrder(t *testing.T) {
	run := &cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "r"}}
	run.Spec.Datacenters = []cbv1.RunDatacenter{{Name: "dc2"}, {Name: "dc9", Namespace: "a-team"}, {Name: "dc1"}}
	want := []types.NamespacedName{{Namespace: "a-team", Name: "dc9"}, {Namespace: "bench", Name: "dc1"}, {Namespace: "bench", Name: "dc2"}}
	if diff := cmp.Diff(want, Keys(run)); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	single := &cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "r"}}
	single.Spec.DatacenterRef = &cbv1.DatacenterReference{Name: "dc1", Namespace: "db"}
	if diff := cmp.Diff([]types.NamespacedName{{Namespace: "db", Name: "dc1"}}, Keys(single)); diff != "" {
		t.Errorf("single keys (-want +got):\n%s", diff)
	}
}

// Datacenters of different clusters are refused naming the field of the odd one out; one not
// found yet is not judged.
func TestOtherCluster(t *testing.T) {
	run := &cbv1.BenchmarkRun{}
	run.Spec.Datacenters = []cbv1.RunDatacenter{{Name: "dc1"}, {Name: "dc2"}, {Name: "dc3"}}
	dc1, dc2, other := inCluster("db", "dc1", "prod"), inCluster("db", "dc2", "prod"), inCluster("db", "dc3", "test")
	for name, tc := range map[string]struct {
		named []*cassdcapi.CassandraDatacenter
		want  string
	}{
		"one cluster":            {named: []*cassdcapi.CassandraDatacenter{&dc1, &dc2, nil}},
		"one in another cluster": {named: []*cassdcapi.CassandraDatacenter{&dc1, &dc2, &other}, want: `spec.datacenters[2]: CassandraDatacenter db/dc3 is in Cassandra cluster "test", but spec.datacenters[0], CassandraDatacenter db/dc1, is in "prod"`},
		"the first not found":    {named: []*cassdcapi.CassandraDatacenter{nil, &other, &dc2}, want: `spec.datacenters[2]: CassandraDatacenter db/dc2 is in Cassandra cluster "prod", but spec.datacenters[1]`},
	} {
		t.Run(name, func(t *testing.T) {
			got := OtherCluster(run, tc.named)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A replication map naming a datacenter that no CassandraDatacenter of the cluster is, even
// one of another cluster with that name, is refused naming the entry.
func TestReplicationOutsideCluster(t *testing.T) {
	cluster := []cassdcapi.CassandraDatacenter{inCluster("db", "dc1", "prod"), inCluster("db", "dc2", "prod"), inCluster("db", "dc9", "test")}
	run := func(names ...string) *cbv1.BenchmarkRun {
		r := &cbv1.BenchmarkRun{}
		for _, n := range names {
			r.Spec.Schema.Replication.Datacenters = append(r.Spec.Schema.Replication.Datacenters, cbv1.DatacenterReplication{Name: n, Factor: 1})
		}
		return r
	}
	for name, tc := range map[string]struct {
		run  *cbv1.BenchmarkRun
		want string
	}{
		"no map":        {run: run()},
		"the cluster's": {run: run("dc1", "dc2")},
		"one the run does not take, of the cluster": {run: run("dc2")},
		"another cluster's":                         {run: run("dc1", "dc9"), want: `schema.replication.datacenters[1].name: dc9 is not a datacenter of Cassandra cluster "prod", whose CassandraDatacenters are dc1, dc2`},
		"none of them":                              {run: run("east"), want: "schema.replication.datacenters[0].name: east"},
	} {
		t.Run(name, func(t *testing.T) {
			got := ReplicationOutsideCluster(tc.run, "prod", cluster)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
