package validation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/admission"
)

// Values that Cassandra, the apiserver or the run's own deadlines would certainly refuse
// later, after the run took (and perhaps resized) its datacenter, are refused on apply, the
// field named. They join rejectedRuns, so that the API server and `cassbench validate`
// (TestOfflineAdmissionMatchesTheAPIServer) are both held to them.
func init() {
	for name, row := range certainFailures {
		if _, dup := rejectedRuns[name]; dup {
			panic("rejected run " + name + " is listed twice")
		}
		rejectedRuns[name] = row
	}
}

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// withCredentials is what connection.service needs beside it.
var withCredentials = set(map[string]any{"name": "cass-creds"}, "spec", "connection", "credentialsSecretRef")

// operations replaces the writers' duration with a count of operations.
func operations(n int64) []mutation {
	return []mutation{remove("spec", "writers", "duration"), set(n, "spec", "writers", "operations")}
}

var certainFailures = map[string]rejectedRun{
	// Consistency levels, by what Cassandra takes for each kind of operation
	// (org.apache.cassandra.db.ConsistencyLevel: validateForRead, validateForWrite,
	// validateForCasCommit, validateCounterForWrite) and how many replicas each needs.
	"reads at ANY": {
		mutate: []mutation{set("ANY", "spec", "workload", "readConsistency")},
		field:  "spec.workload.readConsistency", phrase: "must not be ANY: Cassandra takes ANY only for writes",
	},
	"writes at SERIAL": {
		mutate: []mutation{set("SERIAL", "spec", "workload", "writeConsistency")},
		field:  "spec.workload.writeConsistency", phrase: "Unsupported value",
	},
	"counter increments at ANY": {
		mutate: []mutation{
			set("counters", "spec", "schema", "table", "profile"),
			set(int64(0), "spec", "workload", "writeRatio"),
			set("ANY", "spec", "workload", "writeConsistency"),
			set([]any{map[string]any{"kind": "counterIncrement"}}, "spec", "workload", "operations"),
		},
		field: "spec.workload", phrase: "Cassandra refuses counter writes at ANY",
	},
	"lightweight transactions committed at EACH_QUORUM on SimpleStrategy": {
		mutate: []mutation{
			set("EACH_QUORUM", "spec", "workload", "writeConsistency"),
			set([]any{map[string]any{"kind": "insertIfNotExists"}}, "spec", "workload", "operations"),
		},
		field: "spec", phrase: "Cassandra refuses an EACH_QUORUM commit on a SimpleStrategy keyspace",
	},
	"writes at TWO with one replica": {
		mutate: []mutation{set("TWO", "spec", "workload", "writeConsistency")},
		field:  "spec", phrase: "workload.writeConsistency TWO needs schema.replication.factor 2 or more",
	},
	"reads at THREE with two replicas": {
		mutate: []mutation{set("THREE", "spec", "workload", "readConsistency"), set(int64(2), "spec", "schema", "replication", "factor")},
		field:  "spec", phrase: "and THREE needs 3 or more: Cassandra would answer every read Unavailable",
	},

	// References to Kubernetes objects, by the name rules of their kind.
	"a datacenter name in upper case": {
		mutate: []mutation{set("DC1", "spec", "datacenterRef", "name")},
		field:  "spec.datacenterRef.name", phrase: "datacenterRef.name must be a CassandraDatacenter's name",
	},
	"a datacenter namespace with a dot": {
		mutate: []mutation{set("db.prod", "spec", "datacenterRef", "namespace")},
		field:  "spec.datacenterRef.namespace", phrase: "datacenterRef.namespace must be a namespace's name",
	},
	"a credentials Secret with an underscore": {
		mutate: []mutation{set(map[string]any{"name": "cass_creds"}, "spec", "connection", "credentialsSecretRef")},
		field:  "spec.connection.credentialsSecretRef", phrase: "connection.credentialsSecretRef.name must name a Secret",
	},
	"a credentials Secret without a name": {
		mutate: []mutation{set(map[string]any{}, "spec", "connection", "credentialsSecretRef")},
		field:  "spec.connection.credentialsSecretRef", phrase: "connection.credentialsSecretRef.name must name a Secret",
	},
	"a CSV ConfigMap in upper case": {
		mutate: []mutation{
			set(map[string]any{"cql": "CREATE TABLE t (k bigint PRIMARY KEY, v text)"}, "spec", "schema", "table"),
			set([]any{map[string]any{"name": "v", "csvColumn": "v"}}, "spec", "schema", "columns"),
			set(map[string]any{"configMapName": "IPs", "key": "ips.csv"}, "spec", "schema", "csv"),
		},
		field: "spec.schema.csv.configMapName", phrase: "should match",
	},
	"a service with a port": {
		mutate: []mutation{withCredentials, set("cassandra.db.svc:9042", "spec", "connection", "service")},
		field:  "spec.connection.service", phrase: "connection.service must be a host name or an IP address",
	},
	"a service with a scheme": {
		mutate: []mutation{withCredentials, set("tcp://cassandra", "spec", "connection", "service")},
		field:  "spec.connection.service", phrase: "connection.service must be a host name or an IP address",
	},

	// Image references, by the reference grammar the kubelet parses.
	"an image path in upper case": {
		mutate: []mutation{set("registry.example.com/Team/cassbench:1", "spec", "writers", "image")},
		field:  "spec.writers.image", phrase: "writers.image must be an image reference",
	},
	"an image with a space": {
		mutate: []mutation{set("cassbench: 1.4", "spec", "writers", "image")},
		field:  "spec.writers.image", phrase: "writers.image must be an image reference",
	},
	"an image with two tags": {
		mutate: []mutation{set("cassbench:1.4:2", "spec", "writers", "image")},
		field:  "spec.writers.image", phrase: "writers.image must be an image reference",
	},
	"an image with a short digest": {
		mutate: []mutation{set("cassbench@sha256:0123", "spec", "writers", "image")},
		field:  "spec.writers.image", phrase: "writers.image must be an image reference",
	},
	"an image tag of 129 characters": {
		mutate: []mutation{set("cassbench:"+strings.Repeat("t", 129), "spec", "writers", "image")},
		field:  "spec.writers.image", phrase: "writers.image must be an image reference",
	},

	// What the apiserver checks in the writer Job's pod template.
	"a cpu request above its limit": {
		mutate: []mutation{set(map[string]any{"requests": map[string]any{"cpu": "2"}, "limits": map[string]any{"cpu": "1500m"}}, "spec", "writers", "resources")},
		field:  "spec.writers.resources", phrase: "writers.resources.requests must not exceed writers.resources.limits",
	},
	"a memory request above its limit": {
		mutate: []mutation{set(map[string]any{"requests": map[string]any{"memory": "1Gi"}, "limits": map[string]any{"memory": "1000Mi"}}, "spec", "writers", "resources")},
		field:  "spec.writers.resources", phrase: "writers.resources.requests must not exceed writers.resources.limits",
	},

	// CQL that setup or Cassandra would refuse.
	"cql that creates its table in another keyspace": {
		mutate: []mutation{set("CREATE TABLE other.t (k bigint PRIMARY KEY, v blob)", "spec", "schema", "table", "cql")},
		field:  "spec.schema", phrase: "schema.table.cql creates its table in another keyspace than schema.keyspace",
	},
	"cql that names the keyspace quoted in another case": {
		mutate: []mutation{set(`create table if not exists "Cassbench" . t (k bigint PRIMARY KEY, v blob)`, "spec", "schema", "table", "cql")},
		field:  "spec.schema", phrase: "schema.table.cql creates its table in another keyspace than schema.keyspace",
	},
	"cql without a primary key": {
		mutate: []mutation{set("CREATE TABLE t (k bigint, v blob)", "spec", "schema", "table", "cql")},
		field:  "spec.schema.table.cql", phrase: "schema.table.cql must declare a PRIMARY KEY",
	},

	// Quantities and durations that cannot be met.
	"more replicas than the run's nodes": {
		mutate: []mutation{set(int64(2), "spec", "datacenter", "size"), set(int64(3), "spec", "schema", "replication", "factor")},
		field:  "spec", phrase: "schema.replication.factor is above datacenter.size",
	},
	"a window longer than the run deadline": {
		mutate: []mutation{set("10m", "spec", "writers", "duration"), set("1m", "spec", "writers", "warmup"), set("11m", "spec", "deadlines", "run")},
		field:  "spec", phrase: "deadlines.run must be longer than writers.warmup plus writers.duration",
	},
	"operations at the rate take longer than the run deadline": {
		mutate: append(operations(1_000_000), set(int64(1000), "spec", "writers", "rate"), set("10m", "spec", "deadlines", "run")),
		field:  "spec", phrase: "writers.operations at writers.rate (after writers.warmup) take longer than deadlines.run",
	},
	"a request timeout above the run deadline": {
		mutate: []mutation{set("1h", "spec", "writers", "requestTimeout"), set("30m", "spec", "deadlines", "run")},
		field:  "spec", phrase: "writers.requestTimeout must be shorter than deadlines.run",
	},
}

// admittedAtTheEdge are runs at the edge of each rule above, which must stay admitted: the
// rules refuse only what certainly fails.
var admittedAtTheEdge = map[string][]mutation{
	"cql qualified with the keyspace, unquoted in another case and quoted as Cassandra folds it": {
		set("Bench", "spec", "schema", "keyspace"),
		set(`CREATE TABLE IF NOT EXISTS "bench".t (k bigint PRIMARY KEY, v blob) WITH comment = 'a, b'`, "spec", "schema", "table", "cql"),
	},
	"cql qualified with the keyspace in another case": {
		set(`CREATE TABLE CassBench.t (k bigint, c int, v blob, PRIMARY   KEY ((k), c))`, "spec", "schema", "table", "cql"),
	},
	"TWO with two replicas and THREE with three on three nodes": {
		set("TWO", "spec", "workload", "writeConsistency"), set("THREE", "spec", "workload", "readConsistency"),
		set(int64(3), "spec", "schema", "replication", "factor"), set(int64(3), "spec", "datacenter", "size"),
	},
	"lightweight transactions at EACH_QUORUM on NetworkTopologyStrategy, writes at ANY": {
		set("EACH_QUORUM", "spec", "workload", "writeConsistency"),
		set("NetworkTopologyStrategy", "spec", "schema", "replication", "strategy"),
		set([]any{map[string]any{"kind": "insertIfNotExists", "serialConsistency": "LOCAL_SERIAL"}}, "spec", "workload", "operations"),
	},
	"inserts at ANY, reads at EACH_QUORUM": {
		set("ANY", "spec", "workload", "writeConsistency"), set("EACH_QUORUM", "spec", "workload", "readConsistency"),
		set(int64(1), "spec", "workload", "readRatio"),
	},
	"names with dots and digits, an empty namespace": {
		set("dc-1.east", "spec", "datacenterRef", "name"), set("", "spec", "datacenterRef", "namespace"),
		set(map[string]any{"name": "cass.creds-1"}, "spec", "connection", "credentialsSecretRef"),
		set("cassandra.db.svc.cluster.local.", "spec", "connection", "service"),
	},
	"a service by IPv6 address": {
		withCredentials, set("fd00::7", "spec", "connection", "service"),
	},
	"an image with registry port, path, tag and digest": {
		set("registry.example.com:5000/team/cass_bench__x/writer-1:v1.4.0-rc.1@"+digest, "spec", "writers", "image"),
	},
	"an image by digest alone, from an IPv6 registry": {
		set("[fd00::1]:5000/cassbench@"+digest, "spec", "writers", "image"),
	},
	"requests equal to limits in other units, and below them": {
		set(map[string]any{
			"requests": map[string]any{"cpu": "500m", "memory": "1536Mi", "ephemeral-storage": int64(1000)},
			"limits":   map[string]any{"cpu": int64(1), "memory": "1.5Gi", "ephemeral-storage": "1k"},
		}, "spec", "writers", "resources"),
	},
	"a run deadline just past the window, and a request timeout just under it": {
		set("10m", "spec", "writers", "duration"), set("1m", "spec", "writers", "warmup"), set("11m1s", "spec", "deadlines", "run"),
		set("11m", "spec", "writers", "requestTimeout"),
	},
	"operations at the rate just within the run deadline": {
		remove("spec", "writers", "duration"), set(int64(1000), "spec", "writers", "operations"),
		set(int64(100), "spec", "writers", "rate"), set("11s", "spec", "deadlines", "run"),
	},
	"as many replicas as nodes": {
		set(int64(3), "spec", "datacenter", "size"), set(int64(3), "spec", "schema", "replication", "factor"),
	},
}

// TestRunsAtTheEdgeAreAdmitted holds the rules of certainFailures to refusing only what
// certainly fails: each run here sits at a rule's edge, and the API server and the offline
// admission both admit it, defaulted alike.
func TestRunsAtTheEdgeAreAdmitted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	offline, err := admission.Default()
	if err != nil {
		t.Fatal(err)
	}
	ns := env.Namespace(t)
	for i, name := range sortedKeys(admittedAtTheEdge) {
		t.Run(name, func(t *testing.T) {
			run := validRun(t, ns)
			run.SetGenerateName("")
			run.SetName(fmt.Sprintf("edge-%d", i))
			for _, m := range admittedAtTheEdge[name] {
				m(t, run.Object)
			}
			if err := compareVerdicts(ctx, t, offline, run); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}
