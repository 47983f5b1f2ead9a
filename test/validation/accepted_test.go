package validation_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// What the CRD accepts: defaults filled in for valid specs, and every operations mix the rules
// must let through.

func TestValidSpecsGetDefaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)

	type defaults struct {
		Keyspace         string
		Strategy         cbv1.ReplicationStrategy
		Factor           int32
		Profile          cbv1.TableProfile
		WriteRatio       int32
		WriteConsistency cbv1.ConsistencyLevel
		ReadConsistency  cbv1.ConsistencyLevel
		ReadLimit        int32
		Concurrency      int32
		Retries          int32
		RequestTimeout   time.Duration
		Warmup           time.Duration
		Prepare          time.Duration
	}
	builtIn := defaults{
		Keyspace: "cassbench", Strategy: cbv1.SimpleStrategy, Factor: 1,
		Profile: cbv1.ProfileKeyValue, WriteRatio: 1,
		WriteConsistency: "LOCAL_ONE", ReadConsistency: "LOCAL_ONE",
		Concurrency: 32, Retries: 3, RequestTimeout: 10 * time.Second, Prepare: 30 * time.Minute,
	}

	cases := map[string]struct {
		run  *cbv1.BenchmarkRun
		want defaults
	}{
		"minimal": {
			run:  builders.MakeBenchmarkRun("minimal", ns).Obj(),
			want: builtIn,
		},
		"no retries is kept, not defaulted": {
			run: func() *cbv1.BenchmarkRun {
				r := builders.MakeBenchmarkRun("no-retries", ns).Obj()
				r.Spec.Writers.Retries = ptr.To[int32](0)
				return r
			}(),
			want: func() defaults {
				d := builtIn
				d.Retries = 0
				return d
			}(),
		},
		"bounded by operations": {
			run: builders.MakeBenchmarkRun("operations", ns).Operations(50_000_000).Warmup(30 * time.Second).Obj(),
			want: func() defaults {
				d := builtIn
				d.Warmup = 30 * time.Second
				return d
			}(),
		},
		"full": {
			run: func() *cbv1.BenchmarkRun {
				r := builders.MakeBenchmarkRun("full", ns).
					Datacenter("dc1").DatacenterNamespace("cassandra").Size(5).KeepChanges().
					CassandraYaml(map[string]any{"concurrent_writes": 128, "compaction_throughput": "48MiB/s"}).
					JvmOptions(map[string]any{"initial_heap_size": "8G", "max_heap_size": "8G"}).
					Jvm17Options(map[string]any{"additional-jvm-opts": []any{"-XX:MaxTenuringThreshold=3"}}).
					Writers(24).Concurrency(8).Rate(7000).Duration(20*time.Minute).Warmup(time.Minute).
					RequestTimeout(5*time.Second).Image("example.com/cassbench:dev").
					Keyspace("rtb").ReplicationFactor(2).
					CQL("CREATE TABLE IF NOT EXISTS profiles (id text PRIMARY KEY, attrs map<text, text>)").
					Mix(1, 1).WriteConsistency("TWO").ReadConsistency("ONE").TTL(86400).
					Obj()
				r.Spec.Schema.Compaction = &cbv1.Compaction{
					Class:   "LeveledCompactionStrategy",
					Options: map[string]string{"sstable_size_in_mb": "160"},
				}
				r.Spec.Schema.Columns = []cbv1.ColumnGenerator{{Name: "attrs", MinSize: ptr.To[int32](1), MaxSize: ptr.To[int32](8)}}
				r.Spec.Schema.Indexes = []cbv1.Index{{Column: "attrs"}}
				r.Spec.Writers.Retries = ptr.To[int32](5)
				r.Spec.Writers.MaxErrorPercent = ptr.To[int32](5)
				r.Spec.Workload.ValueSize = &cbv1.SizeRange{Min: ptr.To[int32](100), Max: ptr.To[int32](400)}
				r.Spec.Workload.ReadPath, r.Spec.Workload.ReadLimit = cbv1.ReadIndex, 10
				r.Spec.Deadlines.Prepare = &metav1.Duration{Duration: time.Hour}
				return r
			}(),
			want: defaults{
				Keyspace: "rtb", Strategy: cbv1.SimpleStrategy, Factor: 2,
				WriteRatio: 1, WriteConsistency: "TWO", ReadConsistency: "ONE", ReadLimit: 10,
				Concurrency: 8, Retries: 5, RequestTimeout: 5 * time.Second,
				Warmup: time.Minute, Prepare: time.Hour,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := env.Client.Create(ctx, tc.run, strict); err != nil {
				t.Fatalf("creating a valid run: %v", err)
			}
			got := &cbv1.BenchmarkRun{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(tc.run), got); err != nil {
				t.Fatal(err)
			}
			s := got.Spec
			gotDefaults := defaults{
				Keyspace: s.Schema.Keyspace, Strategy: s.Schema.Replication.Strategy, Factor: s.Schema.Replication.Factor,
				Profile: s.Schema.Table.Profile, WriteRatio: s.Workload.WriteRatio,
				WriteConsistency: s.Workload.WriteConsistency, ReadConsistency: s.Workload.ReadConsistency,
				ReadLimit:   s.Workload.ReadLimit,
				Concurrency: s.Writers.Concurrency, Retries: ptr.Deref(s.Writers.Retries, -1),
				RequestTimeout: durationOf(s.Writers.RequestTimeout), Warmup: durationOf(s.Writers.Warmup),
				Prepare: durationOf(s.Deadlines.Prepare),
			}
			if diff := cmp.Diff(tc.want, gotDefaults); diff != "" {
				t.Errorf("resolved spec (-want +got):\n%s", diff)
			}
			// The CRD fills every defaulted field, so a controller reading the spec never has
			// to guess a value for them.
			if s.Schema.DurableWrites == nil || s.Workload.ReadPath == "" || s.Workload.KeyDistribution == "" ||
				s.Workload.RowsPerPartition == 0 || s.Workload.BatchSize == 0 || s.Workload.BatchType == "" ||
				s.Writers.ConnectionsPerHost == 0 {
				t.Errorf("defaults not filled in: schema %+v, workload %+v, writers %+v", s.Schema, s.Workload, s.Writers)
			}
			if diff := cmp.Diff(tc.run.Spec.Writers.Operations, s.Writers.Operations); diff != "" {
				t.Errorf("writers.operations (-want +got):\n%s", diff)
			}
		})
	}
}

func durationOf(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}

// Mixes of workload.operations that the rules must let through: an operations-only mix, the
// counters profile with its increments, and every kind with the fields it takes. The weight
// defaults to 1.
func TestOperationMixesAreAccepted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	cases := map[string][]mutation{
		"operations only": {
			set(int64(0), "spec", "workload", "writeRatio"),
			set([]any{map[string]any{"kind": "scanPartition", "pageSize": int64(100)}}, "spec", "workload", "operations"),
		},
		"counters": {
			set("counters", "spec", "schema", "table", "profile"),
			set(int64(0), "spec", "workload", "writeRatio"),
			set(int64(1), "spec", "workload", "readRatio"),
			set([]any{map[string]any{"kind": "counterIncrement", "columns": []any{"ips"}}, map[string]any{"kind": "delete"}}, "spec", "workload", "operations"),
		},
		"every kind its fields": {
			set([]any{
				map[string]any{"kind": "update", "columns": []any{"value"}},
				map[string]any{"kind": "delete"},
				map[string]any{"kind": "insertIfNotExists", "serialConsistency": "LOCAL_SERIAL"},
				map[string]any{"kind": "scanPartition", "pageSize": int64(50)},
				map[string]any{"kind": "scanTokenRange", "pageSize": int64(500), "splits": int64(64)},
			}, "spec", "workload", "operations"),
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			run := validRun(t, ns)
			for _, m := range mutate {
				m(t, run.Object)
			}
			if err := env.Client.Create(ctx, run, strict); err != nil {
				t.Fatalf("rejected: %v", err)
			}
			ops, _, _ := unstructured.NestedSlice(run.Object, "spec", "workload", "operations")
			for i, o := range ops {
				if w := o.(map[string]any)["weight"]; w != int64(1) {
					t.Errorf("operations[%d].weight = %v, want the default 1", i, w)
				}
			}
		})
	}
}
