// Package validation checks the BenchmarkRun CRD's admission rules, and every sample and
// kustomize manifest, against a real kube-apiserver.
package validation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

var env *kube.Env

func TestMain(m *testing.M) {
	kube.Main(m, func(e *kube.Env) error { env = e; return nil })
}

// strict makes the apiserver refuse unknown fields instead of dropping them, as kubectl does.
var strict = client.FieldValidation(metav1.FieldValidationStrict)

// mutation edits a run as the unstructured object a kubectl user sends, so that values a Go
// client cannot send (a zero behind omitempty, a typo'd key) can be tried too.
type mutation func(t *testing.T, obj map[string]any)

func set(value any, path ...string) mutation {
	return func(t *testing.T, obj map[string]any) {
		t.Helper()
		if err := unstructured.SetNestedField(obj, value, path...); err != nil {
			t.Fatalf("setting %s: %v", strings.Join(path, "."), err)
		}
	}
}

func remove(path ...string) mutation {
	return func(_ *testing.T, obj map[string]any) { unstructured.RemoveNestedField(obj, path...) }
}

// validRun is a run the CRD admits, as unstructured.
func validRun(t *testing.T, namespace string) *unstructured.Unstructured {
	t.Helper()
	run := builders.MakeBenchmarkRun("", namespace).Obj()
	run.GenerateName = "run-"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(run)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

type rejectedRun struct {
	mutate []mutation
	// field is the path the error must name; phrase what the user must read to fix it.
	field, phrase string
}

// rejectedRuns are edits of a valid run that the CRD must refuse, with the field the refusal
// must name and what it must say. TestOfflineAdmission feeds them to internal/admission too.
var rejectedRuns = map[string]rejectedRun{
	"zero writers": {
		mutate: []mutation{set(int64(0), "spec", "writers", "replicas")},
		field:  "spec.writers.replicas", phrase: "should be greater than or equal to 1",
	},
	"negative writers": {
		mutate: []mutation{set(int64(-1), "spec", "writers", "replicas")},
		field:  "spec.writers.replicas", phrase: "should be greater than or equal to 1",
	},
	"no writers field": {
		mutate: []mutation{remove("spec", "writers", "replicas")},
		field:  "spec.writers.replicas", phrase: "Required value",
	},
	"duration and operations": {
		mutate: []mutation{set(int64(1000), "spec", "writers", "operations")},
		field:  "spec.writers", phrase: "takes exactly one of duration (e.g. 10m) or operations",
	},
	"neither duration nor operations": {
		mutate: []mutation{remove("spec", "writers", "duration")},
		field:  "spec.writers", phrase: "takes exactly one of duration (e.g. 10m) or operations",
	},
	"duration Go cannot read": {
		mutate: []mutation{set("1d", "spec", "writers", "duration")},
		field:  "spec.writers.duration", phrase: "should match",
	},
	"negative warmup": {
		mutate: []mutation{set("-5m", "spec", "writers", "warmup")},
		field:  "spec.writers.warmup", phrase: "should match",
	},
	"pacing tick without a rate": {
		mutate: []mutation{set("1ms", "spec", "writers", "pacingTick")},
		field:  "spec.writers", phrase: "writers.pacingTick paces an open loop: it needs writers.rate",
	},
	"pacing tick over 100ms": {
		mutate: []mutation{set(int64(1000), "spec", "writers", "rate"), set("1s", "spec", "writers", "pacingTick")},
		field:  "spec.writers.pacingTick", phrase: "must be longer than 0s and at most 100ms",
	},
	"zero duration": {
		mutate: []mutation{set("0s", "spec", "writers", "duration")},
		field:  "spec.writers.duration", phrase: "must be longer than 0s",
	},
	"zero request timeout": {
		mutate: []mutation{set("0ms", "spec", "writers", "requestTimeout")},
		field:  "spec.writers.requestTimeout", phrase: "must be longer than 0s",
	},
	"keyspace system": {
		mutate: []mutation{set("system", "spec", "schema", "keyspace")},
		field:  "spec.schema.keyspace", phrase: "must not be a system keyspace",
	},
	"keyspace system_auth": {
		mutate: []mutation{set("system_auth", "spec", "schema", "keyspace")},
		field:  "spec.schema.keyspace", phrase: "must not be a system keyspace",
	},
	"keyspace System_Schema in another case": {
		mutate: []mutation{set("System_Schema", "spec", "schema", "keyspace")},
		field:  "spec.schema.keyspace", phrase: "must not be a system keyspace",
	},
	"keyspace with a system prefix": {
		mutate: []mutation{set("systemic", "spec", "schema", "keyspace")},
		field:  "spec.schema.keyspace", phrase: "must not be a system keyspace",
	},
	"keyspace that is not a CQL identifier": {
		mutate: []mutation{set("bench-1", "spec", "schema", "keyspace")},
		field:  "spec.schema.keyspace", phrase: "should match",
	},
	"unknown write consistency": {
		mutate: []mutation{set("MOST", "spec", "workload", "writeConsistency")},
		field:  "spec.workload.writeConsistency", phrase: `supported values: "ANY", "ONE"`,
	},
	"lower-case read consistency": {
		mutate: []mutation{set("quorum", "spec", "workload", "readConsistency")},
		field:  "spec.workload.readConsistency", phrase: `"QUORUM"`,
	},
	"zero rate": {
		mutate: []mutation{set(int64(0), "spec", "writers", "rate")},
		field:  "spec.writers.rate", phrase: "should be greater than or equal to 1",
	},
	"zero replication factor": {
		mutate: []mutation{set(int64(0), "spec", "schema", "replication", "factor")},
		field:  "spec.schema.replication.factor", phrase: "should be greater than or equal to 1",
	},
	"table with profile and cql": {
		mutate: []mutation{set(map[string]any{
			"profile": "key-value",
			"cql":     "CREATE TABLE t (k bigint PRIMARY KEY, v blob)",
		}, "spec", "schema", "table")},
		field: "spec.schema.table", phrase: "schema.table takes exactly one of profile or cql",
	},
	"table with neither profile nor cql": {
		mutate: []mutation{set(map[string]any{}, "spec", "schema", "table")},
		field:  "spec.schema.table", phrase: "schema.table takes exactly one of profile or cql",
	},
	"cql that is not CREATE TABLE": {
		mutate: []mutation{set("DROP KEYSPACE cassbench", "spec", "schema", "table", "cql")},
		field:  "spec.schema.table.cql", phrase: "must be a single CREATE TABLE statement",
	},
	"cql with a second statement": {
		mutate: []mutation{set("CREATE TABLE t (k int PRIMARY KEY); DROP KEYSPACE cassbench",
			"spec", "schema", "table", "cql")},
		field: "spec.schema.table.cql", phrase: "must be a single CREATE TABLE statement",
	},
	"columns for a profile table": {
		mutate: []mutation{set([]any{map[string]any{"name": "v", "maxSize": int64(10)}}, "spec", "schema", "columns")},
		field:  "spec.schema", phrase: "schema.columns applies only to a table given as cql",
	},
	"column minSize above maxSize": {
		mutate: []mutation{
			set(map[string]any{"cql": "CREATE TABLE t (k bigint PRIMARY KEY, v blob)"}, "spec", "schema", "table"),
			set([]any{map[string]any{"name": "v", "minSize": int64(10), "maxSize": int64(5)}}, "spec", "schema", "columns"),
		},
		field: "spec.schema.columns[0]", phrase: "minSize must not exceed maxSize",
	},
	"unknown profile": {
		mutate: []mutation{set("time-series", "spec", "schema", "table", "profile")},
		field:  "spec.schema.table.profile", phrase: `supported values: "key-value"`,
	},
	"zero concurrency": {
		mutate: []mutation{set(int64(0), "spec", "writers", "concurrency")},
		field:  "spec.writers.concurrency", phrase: "should be greater than or equal to 1",
	},
	"no operations in the mix": {
		mutate: []mutation{
			set(int64(0), "spec", "workload", "writeRatio"),
			set(int64(0), "spec", "workload", "readRatio"),
		},
		field: "spec.workload", phrase: "writeRatio and workload.readRatio must not both be 0",
	},
	"read limit on a row read": {
		mutate: []mutation{
			set("row", "spec", "workload", "readPath"),
			set(int64(5), "spec", "workload", "readLimit"),
		},
		field: "spec.workload", phrase: "workload.readLimit applies to partition and index reads",
	},
	"read limit of 0": {
		mutate: []mutation{set(int64(0), "spec", "workload", "readLimit")},
		field:  "spec.workload.readLimit", phrase: "should be greater than or equal to 1",
	},
	"value size min above max": {
		mutate: []mutation{set(map[string]any{"min": int64(100), "max": int64(10)}, "spec", "workload", "valueSize")},
		field:  "spec.workload.valueSize", phrase: "min must not exceed max",
	},
	"negative write TTL": {
		mutate: []mutation{set(int64(-1), "spec", "workload", "ttlSeconds")},
		field:  "spec.workload.ttlSeconds", phrase: "should be greater than or equal to 0",
	},
	"negative table TTL": {
		mutate: []mutation{set(int64(-1), "spec", "schema", "defaultTTLSeconds")},
		field:  "spec.schema.defaultTTLSeconds", phrase: "should be greater than or equal to 0",
	},
	"bloom filter chance zero": {
		mutate: []mutation{set("0.0", "spec", "schema", "tableOptions", "bloomFilterFPChance")},
		field:  "spec.schema.tableOptions.bloomFilterFPChance", phrase: "bloomFilterFPChance must be above 0",
	},
	"bloom filter chance above one": {
		mutate: []mutation{set("1.5", "spec", "schema", "tableOptions", "bloomFilterFPChance")},
		field:  "spec.schema.tableOptions.bloomFilterFPChance", phrase: "should match",
	},
	"key cache neither ALL nor NONE": {
		mutate: []mutation{set("SOME", "spec", "schema", "tableOptions", "caching", "keys")},
		field:  "spec.schema.tableOptions.caching.keys", phrase: "Unsupported value",
	},
	"datacenter size zero": {
		mutate: []mutation{set(int64(0), "spec", "datacenter", "size")},
		field:  "spec.datacenter.size", phrase: "should be greater than or equal to 1",
	},
	"config section that is not an object": {
		mutate: []mutation{set("concurrent_writes: 64", "spec", "datacenter", "config", "cassandra-yaml")},
		field:  "spec.datacenter.config.cassandra-yaml", phrase: `must be of type object`,
	},
	"cassandra_yaml typo": {
		mutate: []mutation{set(map[string]any{"concurrent_writes": int64(64)}, "spec", "datacenter", "config", "cassandra_yaml")},
		field:  "spec.datacenter.config.cassandra_yaml", phrase: "unknown field",
	},
	"unknown operation kind": {
		mutate: []mutation{set([]any{map[string]any{"kind": "upsert"}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0].kind", phrase: "Unsupported value",
	},
	"operation kind listed twice": {
		mutate: []mutation{set([]any{map[string]any{"kind": "delete"}, map[string]any{"kind": "delete", "weight": int64(2)}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[1]", phrase: "Duplicate value",
	},
	"operation weight of 0": {
		mutate: []mutation{set([]any{map[string]any{"kind": "delete", "weight": int64(0)}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0].weight", phrase: "should be greater than or equal to 1",
	},
	"columns on a delete": {
		mutate: []mutation{set([]any{map[string]any{"kind": "delete", "columns": []any{"value"}}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0]", phrase: "columns applies to update and counterIncrement",
	},
	"serial consistency on an update": {
		mutate: []mutation{set([]any{map[string]any{"kind": "update", "serialConsistency": "SERIAL"}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0]", phrase: "serialConsistency applies to insertIfNotExists",
	},
	"serial consistency that is not serial": {
		mutate: []mutation{set([]any{map[string]any{"kind": "insertIfNotExists", "serialConsistency": "QUORUM"}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0].serialConsistency", phrase: "Unsupported value",
	},
	"page size on a delete": {
		mutate: []mutation{set([]any{map[string]any{"kind": "delete", "pageSize": int64(100)}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0]", phrase: "pageSize applies to scanPartition and scanTokenRange",
	},
	"splits on a partition scan": {
		mutate: []mutation{set([]any{map[string]any{"kind": "scanPartition", "splits": int64(16)}}, "spec", "workload", "operations")},
		field:  "spec.workload.operations[0]", phrase: "splits applies to scanTokenRange",
	},
	"lightweight transactions in batches": {
		mutate: []mutation{
			set(int64(10), "spec", "workload", "batchSize"),
			set([]any{map[string]any{"kind": "insertIfNotExists"}}, "spec", "workload", "operations"),
		},
		field: "spec.workload", phrase: "insertIfNotExists and counterIncrement write one row per operation",
	},
	"counter increments on a table without counters": {
		mutate: []mutation{set([]any{map[string]any{"kind": "counterIncrement"}}, "spec", "workload", "operations")},
		field:  "spec", phrase: "counterIncrement needs a table with counter columns",
	},
	"inserts into the counters profile": {
		mutate: []mutation{
			set("counters", "spec", "schema", "table", "profile"),
			set([]any{map[string]any{"kind": "counterIncrement"}}, "spec", "workload", "operations"),
		},
		field: "spec", phrase: "the counters profile has only counter columns",
	},
	"updates of the counters profile": {
		mutate: []mutation{
			set("counters", "spec", "schema", "table", "profile"),
			set(int64(0), "spec", "workload", "writeRatio"),
			set([]any{map[string]any{"kind": "counterIncrement"}, map[string]any{"kind": "update"}}, "spec", "workload", "operations"),
		},
		field: "spec", phrase: "the counters profile has only counter columns",
	},
	"no datacenter name": {
		mutate: []mutation{remove("spec", "datacenterRef", "name")},
		field:  "spec.datacenterRef.name", phrase: "Required value",
	},
}

func TestInvalidSpecsAreRejected(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := env.Namespace(t)

	for name, tc := range rejectedRuns {
		t.Run(name, func(t *testing.T) {
			run := validRun(t, ns)
			for _, m := range tc.mutate {
				m(t, run.Object)
			}
			err := env.Client.Create(ctx, run, strict)
			assertRejected(t, err, tc.field, tc.phrase)
		})
	}
}

func TestSpecIsImmutable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	run := builders.MakeBenchmarkRun("run", ns).Writers(3).Obj()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatalf("creating run: %v", err)
	}

	run.Spec.Writers.Replicas = 4
	err := env.Client.Update(ctx, run)
	assertRejected(t, err, "spec", "spec is immutable: a new experiment is a new BenchmarkRun")
}

// The controller changes metadata (finalizers) and status, never the spec, by patch or by
// Update. Durations a user wrote as "10m" come back from Go as "10m0s"; the immutability rule
// must compare them as durations, or every Update of a run would be refused.
func TestMetadataChangesPassTheImmutabilityRule(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	u := validRun(t, ns)
	set("10m", "spec", "writers", "duration")(t, u.Object)
	set("1m", "spec", "writers", "warmup")(t, u.Object)
	set("45m", "spec", "deadlines", "prepare")(t, u.Object)
	// As kubectl sends a manifest that gives no writers.resources: the stored spec has no such
	// key, and a typed client must not send one back (an empty struct is not an absent one).
	remove("spec", "writers", "resources")(t, u.Object)
	if err := env.Client.Create(ctx, u, strict); err != nil {
		t.Fatalf("creating run: %v", err)
	}

	run := &cbv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(u), run); err != nil {
		t.Fatal(err)
	}
	base := run.DeepCopy()
	run.Finalizers = append(run.Finalizers, cbv1.Finalizer)
	if err := env.Client.Patch(ctx, run, client.MergeFrom(base)); err != nil {
		t.Errorf("adding a finalizer with a merge patch: %v", err)
	}
	run.Status.Phase = cbv1.PhasePending
	run.Status.ObservedGeneration = run.Generation
	if err := env.Client.Status().Patch(ctx, run, client.MergeFrom(base)); err != nil {
		t.Errorf("patching status: %v", err)
	}

	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(u), run); err != nil {
		t.Fatal(err)
	}
	run.Finalizers = nil
	if err := env.Client.Update(ctx, run); err != nil {
		t.Errorf("updating metadata with the spec as Go reads it: %v", err)
	}
}

// assertRejected checks that the apiserver refused the object as invalid, and that the
// message names the field and says what is wrong with it.
func assertRejected(t *testing.T, err error, field, phrase string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want %s rejected with %q", field, phrase)
	}
	// Strict field validation reports unknown fields as BadRequest; everything else the
	// schema or a CEL rule refuses is Invalid.
	unknownField := phrase == "unknown field" && apierrors.IsBadRequest(err)
	if !apierrors.IsInvalid(err) && !unknownField {
		t.Fatalf("got %v (reason %q); want Invalid", err, apierrors.ReasonForError(err))
	}
	msg := err.Error()
	if !strings.Contains(msg, field) || !strings.Contains(msg, phrase) {
		t.Errorf("message %q\nwant it to name %q and say %q", msg, field, phrase)
	}
}
