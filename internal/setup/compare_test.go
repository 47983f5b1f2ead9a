package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/workload"
)

func wantOf(t *testing.T, configure func(*builders.BenchmarkRunBuilder), datacenter string) *workload.Want {
	t.Helper()
	b := builders.MakeBenchmarkRun("r", "default").Keyspace("bench")
	if configure != nil {
		configure(b)
	}
	s := b.Obj().Spec
	spec, err := admission.DefaultRunSpec(&s)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.WantSchema(spec, datacenter)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// stored is keyspace bench with table key_value as Cassandra 5.0 stores what the default spec
// creates: full class names, the strategies' default sub-options, numbers as strings.
func stored(edit func(*existingKeyspace, *existingTable)) *existingKeyspace {
	t := &existingTable{
		Name:    "key_value",
		Comment: CreatedComment,
		MapOptions: map[string]map[string]string{
			"compaction":  {"class": "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy", "max_sstables_to_compact": "64", "scaling_parameters": "T4"},
			"compression": {"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"},
			"caching":     {"keys": "ALL", "rows_per_partition": "NONE"},
		},
		ScalarOptions: map[string]string{"default_time_to_live": "0", "gc_grace_seconds": "864000", "bloom_filter_fp_chance": "0.01"},
		Columns: map[string]existingColumn{
			"key":   {Kind: "partition_key", Position: 0, Type: "bigint"},
			"value": {Kind: "regular", Position: -1, Type: "blob"},
		},
		Indexes: map[string]existingIndex{},
	}
	k := &existingKeyspace{
		Name:          "bench",
		Replication:   map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"},
		DurableWrites: true,
		Tables:        map[string]*existingTable{"key_value": t},
	}
	if edit != nil {
		edit(k, t)
	}
	return k
}

func TestCompareSchema(t *testing.T) {
	lcs := func(b *builders.BenchmarkRunBuilder) {
		b.Obj().Spec.Schema.Compaction = &cbv1.Compaction{Class: "LeveledCompactionStrategy", Options: map[string]string{"sstable_size_in_mb": "160"}}
	}
	nts := func(b *builders.BenchmarkRunBuilder) {
		b.Obj().Spec.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy, Factor: 3}
	}
	tests := map[string]struct {
		configure func(*builders.BenchmarkRunBuilder)
		have      *existingKeyspace
		want      []string
	}{
		"the same schema, as Cassandra stores it": {have: stored(nil)},
		"a replication factor and strategy left by an earlier run": {
			configure: nts,
			have:      stored(nil),
			want:      []string{"keyspace bench has replication {class: SimpleStrategy, replication_factor: 1}, the run asks {class: NetworkTopologyStrategy, dc1: 3}"},
		},
		"a factor in another datacenter": {
			configure: nts,
			have: stored(func(k *existingKeyspace, _ *existingTable) {
				k.Replication = map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3", "dc2": "3"}
			}),
			want: []string{"keyspace bench has replication {class: NetworkTopologyStrategy, dc1: 3, dc2: 3}, the run asks {class: NetworkTopologyStrategy, dc1: 3}"},
		},
		"the asked compaction, with the defaults Cassandra adds": {
			configure: lcs,
			have: stored(func(_ *existingKeyspace, t *existingTable) {
				t.MapOptions["compaction"] = map[string]string{"class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", "sstable_size_in_mb": "160.0", "fanout_size": "10"}
				t.Comment = markerComment([]string{"compaction"})
			}),
		},
		"another compaction": {
			configure: lcs,
			have:      stored(nil),
			want:      []string{"table bench.key_value has compaction {class: UnifiedCompactionStrategy, max_sstables_to_compact: 64, scaling_parameters: T4}, the run asks {class: LeveledCompactionStrategy, sstable_size_in_mb: 160}"},
		},
		"a compaction an earlier run set, which this run leaves at the default": {
			have: stored(func(_ *existingKeyspace, t *existingTable) {
				t.MapOptions["compaction"] = map[string]string{"class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy"}
				t.Comment = markerComment([]string{"compaction"})
			}),
			want: []string{"table bench.key_value has compaction {class: LeveledCompactionStrategy}, set by the run that created it; this run leaves compaction at the cluster's default"},
		},
		"a user's table keeps the compaction the run does not ask about": {
			have: stored(func(_ *existingKeyspace, t *existingTable) {
				t.MapOptions["compaction"] = map[string]string{"class": "org.apache.cassandra.db.compaction.LeveledCompactionStrategy"}
				t.Comment = ""
			}),
		},
		"a TTL the run does not ask": {
			have: stored(func(_ *existingKeyspace, t *existingTable) { t.ScalarOptions["default_time_to_live"] = "3600" }),
			want: []string{"table bench.key_value has default_time_to_live 3600, the run leaves it at the default 0"},
		},
		"options written as the spec writes them": {
			configure: func(b *builders.BenchmarkRunBuilder) {
				b.Obj().Spec.Schema.DefaultTTLSeconds = new(int32(600))
				b.Obj().Spec.Schema.TableOptions = &cbv1.TableOptions{
					Compression:         map[string]string{"class": "ZstdCompressor", "chunk_length_kb": "16"},
					Caching:             &cbv1.Caching{Keys: "NONE"},
					GCGraceSeconds:      new(int32(0)),
					BloomFilterFPChance: "0.100",
				}
			},
			have: stored(func(_ *existingKeyspace, t *existingTable) {
				t.ScalarOptions = map[string]string{"default_time_to_live": "600", "gc_grace_seconds": "0", "bloom_filter_fp_chance": "0.1"}
				t.MapOptions["compression"] = map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.ZstdCompressor", "compression_level": "3"}
				t.MapOptions["caching"] = map[string]string{"keys": "NONE", "rows_per_partition": "NONE"}
			}),
		},
		"columns and indexes": {
			configure: func(b *builders.BenchmarkRunBuilder) {
				b.CQL("CREATE TABLE key_value (key bigint, at timestamp, value varchar, PRIMARY KEY (key, at))")
				b.Obj().Spec.Schema.Indexes = []cbv1.Index{{Column: "value", Kind: "sai"}}
			},
			have: stored(func(_ *existingKeyspace, t *existingTable) {
				t.Columns["value"] = existingColumn{Kind: "regular", Position: -1, Type: "blob"}
				t.Columns["old"] = existingColumn{Kind: "regular", Position: -1, Type: "int"}
				t.Indexes["key_value_old_idx"] = existingIndex{Kind: "COMPOSITES", Options: map[string]string{"target": "old"}}
			}),
			want: []string{
				"table bench.key_value has no column at timestamp",
				"table bench.key_value has column value of type blob, the run asks varchar",
				"table bench.key_value has column old int, which the run does not ask",
				"table bench.key_value has no index key_value_value_idx on value",
				"table bench.key_value has index key_value_old_idx on old, which the run does not create (every write also updates it)",
			},
		},
		"a table not there yet is no difference": {
			configure: func(b *builders.BenchmarkRunBuilder) { b.Profile(cbv1.ProfileUserProfile) },
			have:      stored(nil),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := compareSchema(wantOf(t, tc.configure, "dc1"), tc.have)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("differences (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarkerRecordsTheOptionsSet(t *testing.T) {
	c := markerComment([]string{"compaction", "default_time_to_live"})
	ok, set := parseMarker(c)
	if !ok || !set["compaction"] || !set["default_time_to_live"] || len(set) != 2 {
		t.Errorf("parseMarker(%q) = %t, %v", c, ok, set)
	}
	if ok, _ := parseMarker("orders of the shop"); ok {
		t.Error("a user's comment read as cassbench's")
	}
}

func TestMarkStatements(t *testing.T) {
	b := builders.MakeBenchmarkRun("r", "default").Keyspace("bench")
	b.Obj().Spec.Schema.DefaultTTLSeconds = new(int32(60))
	s := b.Obj().Spec
	spec, err := admission.DefaultRunSpec(&s)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := workload.BuildSchema(spec, "dc1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := workload.WantSchema(spec, "dc1")
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := markStatements(schema, want, `CREATE TABLE IF NOT EXISTS "bench".barrier (run text PRIMARY KEY)`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(stmts[1], "AND comment = 'created by cassbench; set: default_time_to_live'") {
		t.Errorf("table statement not marked with the option it sets: %s", stmts[1])
	}
	if last := stmts[len(stmts)-1]; !strings.HasSuffix(last, "WITH comment = 'created by cassbench'") {
		t.Errorf("barrier statement not marked: %s", last)
	}
}

func TestMayDrop(t *testing.T) {
	user := func(k *existingKeyspace, _ *existingTable) {
		k.Name = "orders"
		k.Tables["customers"] = &existingTable{Name: "customers"}
	}
	tests := map[string]struct {
		have    *existingKeyspace
		allowed []string
		refused string
	}{
		"a keyspace cassbench created": {have: stored(nil)},
		"a user's table in it": {
			have:    stored(user),
			refused: `schema.recreate would drop keyspace orders, which cassbench did not create (its table or view customers not created by cassbench (its comment does not start with "created by cassbench")): nothing was dropped; to let runs drop and create it, list it in the annotation (e.g. "orders"), or choose a keyspace of the run's own`,
		},
		"listed by a pattern":  {have: stored(user), allowed: []string{"bench", "ord*"}},
		"another pattern only": {have: stored(user), allowed: []string{"orders_*"}, refused: "would drop keyspace orders"},
		"an empty keyspace": {
			have:    stored(func(k *existingKeyspace, _ *existingTable) { k.Tables = map[string]*existingTable{} }),
			refused: "(it holds no table)",
		},
		"a view": {
			have:    stored(func(k *existingKeyspace, _ *existingTable) { k.Views = []string{"by_value"} }),
			refused: "its table or view by_value not created by cassbench",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := mayDrop(tc.have, tc.allowed, "the annotation")
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Errorf("got %v, want a refusal containing %q", err, tc.refused)
			}
		})
	}
}

func TestParseKeyspacePatterns(t *testing.T) {
	got, err := ParseKeyspacePatterns(" bench, bench_* ,,")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bench", "bench_*"}, got); diff != "" {
		t.Error(diff)
	}
	for _, bad := range []string{"bench?", "b[a]", "a/b"} {
		if _, err := ParseKeyspacePatterns(bad); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
}

func TestNormTypeFoldsVarcharAsCassandraStoresIt(t *testing.T) {
	for written, stored := range map[string]string{
		"varchar":                             "text",
		"map<varchar, frozen<list<varchar>>>": "map<text, frozen<list<text>>>",
		"set<int>":                            "set<int>",
	} {
		if normType(written) != normType(stored) {
			t.Errorf("%s and %s differ: %s, %s", written, stored, normType(written), normType(stored))
		}
	}
	if normType("myvarchar_type") == normType("mytext_type") {
		t.Error("a user type's name was folded")
	}
}
