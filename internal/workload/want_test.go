package workload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A CREATE TABLE's own WITH clause counts as much as the spec's fields: a reused table is
// compared with both.
func TestWantSchemaReadsTheStatementsOptions(t *testing.T) {
	spec := specOf(func(s *cbv1.BenchmarkRunSpec) {
		s.Schema.Table = cbv1.TableSpec{CQL: `CREATE TABLE t (k int, c int, v text, PRIMARY KEY ((k), c))
			WITH CLUSTERING ORDER BY (c DESC) AND compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 160}
			AND gc_grace_seconds = 3600 AND comment = 'mine'`}
		s.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy, Factor: 2}
		s.Schema.TableOptions = &cbv1.TableOptions{BloomFilterFPChance: "0.1"}
		s.Schema.Indexes = []cbv1.Index{{Column: "v", Kind: "sai"}}
	})
	w, err := WantSchema(spec, "dc1")
	if err != nil {
		t.Fatal(err)
	}
	want := &Want{
		Keyspace: "cassbench", Table: "t",
		Replication:   map[string]string{"class": "NetworkTopologyStrategy", "dc1": "2"},
		DurableWrites: true,
		Columns: []WantColumn{
			{Name: "k", Kind: "partition_key", Position: 0, Type: "int"},
			{Name: "c", Kind: "clustering", Position: 0, Type: "int"},
			{Name: "v", Kind: "regular", Position: -1, Type: "text"},
		},
		Indexes:       []WantIndex{{Name: "t_v_idx", Target: "v", SAI: true}},
		MapOptions:    map[string]map[string]string{"compaction": {"class": "LeveledCompactionStrategy", "sstable_size_in_mb": "160"}},
		ScalarOptions: map[string]string{"gc_grace_seconds": "3600", "bloom_filter_fp_chance": "0.1"},
		Comment:       true,
	}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("WantSchema (-want +got):\n%s", diff)
	}
}

func TestWithOption(t *testing.T) {
	for stmt, suffix := range map[string]string{
		"CREATE TABLE IF NOT EXISTS ks.t (k int, PRIMARY KEY (k))":                                             ") WITH comment = 'x'",
		"CREATE TABLE IF NOT EXISTS ks.t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)": "(c DESC) AND comment = 'x'",
	} {
		got, err := WithOption(stmt, "comment", "'x'")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(got, suffix) {
			t.Errorf("WithOption(%q) = %q, want it to end in %q", stmt, got, suffix)
		}
	}
}

// A replication map is what an existing keyspace must hold: every datacenter at its factor.
func TestWantSchemaReplicationMap(t *testing.T) {
	spec := specOf(func(s *cbv1.BenchmarkRunSpec) {
		s.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy,
			Datacenters: []cbv1.DatacenterReplication{{Name: "dc1", Factor: 3}, {Name: "dc2", Factor: 1}}}
	})
	w, err := WantSchema(spec, "dc1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"class": "NetworkTopologyStrategy", "dc1": "3", "dc2": "1"}, w.Replication); diff != "" {
		t.Errorf("replication (-want +got):\n%s", diff)
	}
}
