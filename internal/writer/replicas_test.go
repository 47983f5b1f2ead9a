package writer

import (
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A replication map's factors add up: one replica in each of two datacenters is two, and its
// barrier runs at QUORUM (at ONE, from schema.replication.factor's default of 1, the barrier
// never released the one writer of TestWriterPodObservesAnotherDatacenter).
func TestReplicasAddUpAReplicationMap(t *testing.T) {
	for name, tc := range map[string]struct {
		r    cbv1.Replication
		want int32
		cl   gocql.Consistency
	}{
		"factor":       {cbv1.Replication{Factor: 1}, 1, gocql.One},
		"factor three": {cbv1.Replication{Factor: 3}, 3, gocql.Quorum},
		"map": {cbv1.Replication{Factor: 1, Datacenters: []cbv1.DatacenterReplication{{Name: "dc1", Factor: 1}, {Name: "dc2", Factor: 1}}},
			2, gocql.Quorum},
	} {
		if got := Replicas(tc.r); got != tc.want || BarrierConsistency(got) != tc.cl {
			t.Errorf("%s: %d replicas, %s; want %d, %s", name, got, BarrierConsistency(got), tc.want, tc.cl)
		}
	}
}
