// Package versions_test runs the settings check, the heap check and the server evidence on
// each Cassandra release users run (4.0, 4.1 and 5.0), each on a cluster of its own: the
// support matrix of docs/install.md. make test-cassandra-matrix runs it with every release
// fetched; a release not in the cache skips, naming that target.
package versions_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// offset puts the releases' clusters on 127.0.0.61 and up, beside the shared cluster and the
// other tests' private ones (docs/testing.md lists the offsets taken).
const offset = 60

// releases are the versions make test-cassandra-matrix runs (CASSANDRA_MATRIX there).
func releases() []string {
	if v := os.Getenv("CASSBENCH_CASSANDRA_MATRIX"); v != "" {
		return strings.Fields(v)
	}
	return []string{"5.0.9", "4.1.10", "4.0.19"}
}

// missing are the virtual tables the evidence reads that a release lacks (org.apache.
// cassandra.db.virtual in cassandra-all of that version): pending_hints came with 4.1.
var missing = map[string][]string{"4.0": {"pending_hints"}}

func TestSettingsHeapAndEvidenceOnEachRelease(t *testing.T) {
	if os.Getenv(cassandra.AloneEnv) != "1" {
		t.Skip("starts a cluster of each Cassandra release of its own: run by make test-cassandra-matrix (" + cassandra.AloneEnv + "=1)")
	}
	for _, version := range releases() {
		t.Run(version, func(t *testing.T) {
			cassandra.RequireVersion(t, version, "test-cassandra-matrix")
			start := time.Now()
			c := cassandra.Private(t, offset, cassandra.Options{Nodes: 1, Auth: true, Heap: "512M", Version: version})
			t.Logf("Cassandra %s up in %s", version, time.Since(start).Round(time.Second))
			conn := cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password, Timeout: 30 * time.Second}
			checkSettings(t, version, c, conn)
			checkEvidence(t, version, conn)
		})
	}
}

// checkSettings runs setup with settings in 5.0's forms and 4.0's, the heap the node runs
// with, and values the node does not have.
func checkSettings(t *testing.T, version string, c *cassandra.Cluster, conn cql.Options) {
	t.Helper()
	node := c.Hosts[0]
	tests := map[string]struct {
		yaml     map[string]any
		jvm      map[string]any
		err      string // a part of the error; "" for none
		verified []string
	}{
		"5.0 names, 4.0 names, class names and the heap": {
			yaml: map[string]any{
				"concurrent_writes": 32, "compaction_throughput": "64MiB/s", "write_request_timeout": "2s",
				"commitlog_sync_period_in_ms": 10000, "authenticator": map[string]any{"class_name": "PasswordAuthenticator"},
			},
			jvm: map[string]any{"max_heap_size": "512M"},
			verified: []string{"authenticator.class_name", "commitlog_sync_period_in_ms", "compaction_throughput", "concurrent_writes",
				"write_request_timeout", "jvm-server-options.max_heap_size"},
		},
		"a value not applied": {
			yaml: map[string]any{"compaction_throughput": "48MiB/s"},
			err:  "node " + node + " (Cassandra " + version + "): compaction_throughput is 64",
		},
		"another heap": {
			jvm: map[string]any{"max_heap_size": "768M"},
			err: "node " + node + ": jvm-server-options.max_heap_size is 512M (4 × memtable_heap_space and memtable_offheap_space in system_views.settings), wanted 768M",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := builders.MakeBenchmarkRun("matrix", "default").Keyspace("it_matrix").Duration(2 * time.Second).Concurrency(4)
			if tc.yaml != nil {
				b.CassandraYaml(tc.yaml)
			}
			if tc.jvm != nil {
				b.JvmOptions(tc.jvm)
			}
			s := b.Obj().Spec
			spec, err := admission.DefaultRunSpec(&s)
			if err != nil {
				t.Fatal(err)
			}
			report, err := setup.Run(context.Background(), setup.Config{Spec: spec, Conn: conn, ExpectNodes: 1})
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("setup: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("setup error %v, want one containing %q", err, tc.err)
			case tc.err != "":
				t.Logf("refused as wanted: %v", err)
				return
			}
			if report.CassandraVersion != version {
				t.Errorf("setup reports Cassandra %q, want %q", report.CassandraVersion, version)
			}
			if !slices.Equal(report.SettingsVerified, tc.verified) {
				t.Errorf("verified %q, want %q", report.SettingsVerified, tc.verified)
			}
		})
	}
}

// checkEvidence writes to the benchmark table and reads the node's snapshot: the thread
// pools, the table's write count and its latency in the release's unit, and the tables the
// release lacks named as missing.
func checkEvidence(t *testing.T, version string, conn cql.Options) {
	t.Helper()
	s, err := cql.Connect(conn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS it_matrix_ev WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS it_matrix_ev.t (k int PRIMARY KEY, v text)",
	} {
		if err := s.Query(stmt).ExecContext(ctx); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	targets := nodewatch.Targets(s, "it_matrix_ev", "t")
	if len(targets) != 1 {
		t.Fatalf("%d targets, want 1", len(targets))
	}
	target := targets[0]
	target.CompactedSince = time.Now().Add(-time.Hour)
	before, err := nodewatch.Read(ctx, s, target, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const writes = 200
	for i := range writes {
		if err := s.Query("INSERT INTO it_matrix_ev.t (k, v) VALUES (?, 'x')", i).ExecContext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	after, err := nodewatch.Read(ctx, s, target, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != version {
		t.Errorf("snapshot of Cassandra %q, want %q", after.Version, version)
	}
	if got := after.LocalWrite.Count - before.LocalWrite.Count; got != writes {
		t.Errorf("local_write_latency counted %d writes, want %d", got, writes)
	}
	if _, ok := after.Pools["MutationStage"]; !ok {
		t.Errorf("no MutationStage in thread_pools: %v", after.Pools)
	}
	if !after.CompactedRead {
		t.Errorf("system.compaction_history not read")
	}
	release := strings.Join(strings.SplitN(version, ".", 3)[:2], ".")
	if want := missing[release]; !slices.Equal(after.Missing, want) {
		t.Errorf("tables missing on %s: %q, want %q", version, after.Missing, want)
	}
	// 4.x tables hold milliseconds to three decimals, so a write shows; 5.0's hold seconds
	// to three decimals (LatencyUnit), where a fast write reads 0.
	micros, _, ok := nodewatch.LatencyUnit(after.Version)
	if !ok || micros == 1e3 && after.LocalWrite.Max <= 0 || after.LocalWrite.Max*micros > float64(time.Second/time.Microsecond) {
		t.Errorf("local write max %v in units of %v µs: not a write's latency", after.LocalWrite.Max, micros)
	}
	t.Logf("Cassandra %s: %d pools, local write p99 %.3f (unit %v µs), missing %q", version, len(after.Pools), after.LocalWrite.P99, micros, after.Missing)
}
