package writer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// Settings are checked on every node; a typo or a value not applied fails setup naming the
// setting, and a setting renamed in 4.1 verifies under either name.
func TestSetupVerifiesSettings(t *testing.T) {
	c := cluster(t)
	tests := map[string]struct {
		yaml     map[string]any
		err      string
		verified []string
	}{
		"typo": {
			yaml: map[string]any{"concurent_writes": 64},
			err:  `setting "concurent_writes" is not a setting of Cassandra 5.0.9 (node ` + c.Hosts[0] + `)`,
		},
		"not applied": {
			yaml: map[string]any{"concurrent_writes": 64},
			err:  "node " + c.Hosts[0] + " (Cassandra 5.0.9): concurrent_writes is 32, wanted 64",
		},
		"old and new names, units": {
			yaml:     map[string]any{"concurrent_writes": 32, "compaction_throughput_mb_per_sec": 64, "compaction_throughput": "65536KiB/s", "commitlog_sync_period": "10s", "authenticator": "PasswordAuthenticator"},
			verified: []string{"authenticator", "commitlog_sync_period", "compaction_throughput", "compaction_throughput_mb_per_sec", "concurrent_writes"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := spec("it_setup", func(b *builders.BenchmarkRunBuilder) { b.CassandraYaml(tc.yaml) })
			report, err := setup.Run(context.Background(), setup.Config{Spec: s, AllowDrop: testKeyspaces, Conn: connOptions(c), ExpectNodes: 2})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.err || report.Error != tc.err {
				t.Fatalf("setup error %q (report %q), want %q", got, report.Error, tc.err)
			}
			if report.Nodes != 2 || !strings.HasPrefix(report.CassandraVersion, "5.0") {
				t.Errorf("report: %d nodes, version %q", report.Nodes, report.CassandraVersion)
			}
			if diff := cmp.Diff(tc.verified, report.SettingsVerified); diff != "" {
				t.Errorf("settings verified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetupRefusesSystemKeyspace(t *testing.T) {
	c := cluster(t)
	s := spec("system_mine", nil)
	_, err := setup.Run(context.Background(), setup.Config{Spec: s, AllowDrop: testKeyspaces, Conn: connOptions(c)})
	if err == nil || !strings.Contains(err.Error(), `keyspace "system_mine" is refused`) {
		t.Fatalf("err = %v, want the system keyspace refused", err)
	}
}

func TestConnectionErrors(t *testing.T) {
	c := cluster(t)
	tests := map[string]struct {
		conn cql.Options
		want string
	}{
		"wrong password": {
			conn: cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: "wrong"},
			want: `authentication failed for user "cassandra"`,
		},
		"no credentials": {
			conn: cql.Options{Hosts: c.Hosts, Port: c.Port},
			want: "the cluster requires a username and password",
		},
		"nothing listening": {
			conn: cql.Options{Hosts: []string{"127.0.0.1"}, Port: 1, ConnectTimeout: 2 * time.Second},
			want: "connecting to Cassandra at 127.0.0.1:1: connection refused",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := spec("it_conn", nil)
			report, err := setup.Run(context.Background(), setup.Config{Spec: s, AllowDrop: testKeyspaces, Conn: tc.conn})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			if report.Error != err.Error() {
				t.Errorf("report error %q differs from %q", report.Error, err)
			}
		})
	}
}

// schema.tableOptions reach the table of a built-in profile, as Cassandra reads them back.
func TestSetupAppliesTableOptions(t *testing.T) {
	c := cluster(t)
	s := spec("it_table_options", nil)
	gc := int32(3600)
	s.Schema.TableOptions = &cbv1.TableOptions{
		Compression:         map[string]string{"class": "ZstdCompressor", "chunk_length_in_kb": "16"},
		Caching:             &cbv1.Caching{Keys: "NONE", RowsPerPartition: "10"},
		GCGraceSeconds:      &gc,
		BloomFilterFPChance: "0.1",
	}
	setUp(t, c, s)
	sess, err := cql.Connect(connOptions(c))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var (
		grace                int
		bloom                float64
		caching, compression map[string]string
	)
	err = sess.Query(`SELECT gc_grace_seconds, bloom_filter_fp_chance, caching, compression FROM system_schema.tables
		WHERE keyspace_name = 'it_table_options' AND table_name = 'key_value'`).Scan(&grace, &bloom, &caching, &compression)
	if err != nil {
		t.Fatal(err)
	}
	if grace != 3600 || bloom != 0.1 {
		t.Errorf("gc_grace_seconds %d, bloom_filter_fp_chance %v; want 3600 and 0.1", grace, bloom)
	}
	if caching["keys"] != "NONE" || caching["rows_per_partition"] != "10" {
		t.Errorf("caching %v, want keys NONE and rows_per_partition 10", caching)
	}
	if !strings.HasSuffix(compression["class"], "ZstdCompressor") || compression["chunk_length_in_kb"] != "16" {
		t.Errorf("compression %v, want ZstdCompressor in 16 KiB chunks", compression)
	}
}
