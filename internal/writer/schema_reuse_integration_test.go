package writer_test

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// ddlSession is a DDL-capable session on the test cluster, closed with the test.
func ddlSession(t *testing.T, c *cassandra.Cluster) *gocql.Session {
	t.Helper()
	o := connOptions(c)
	o.Timeout = 2 * time.Minute
	s, err := cql.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// dropKeyspace drops a test keyspace now and when the test ends, and clears every snapshot of
// it that the drops left.
func dropKeyspace(t *testing.T, c *cassandra.Cluster, s *gocql.Session, ks string) {
	t.Helper()
	drop := func() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Errorf("dropping %s: %v", ks, err)
		}
		for i := range c.Hosts {
			out, err := exec.Command("../../hack/cassandra.sh", "nodetool", "--node", strconv.Itoa(i+1),
				"clearsnapshot", "--all", "--", ks).CombinedOutput()
			if err != nil {
				t.Logf("clearing the test's snapshots on node %d: %v: %s", i+1, err, out)
			}
		}
	}
	drop()
	t.Cleanup(drop)
}

// Without schema.recreate an existing keyspace and table are reused only when they are what
// the run asks: CREATE ... IF NOT EXISTS would keep an earlier run's replication and options.
// The same spec again must pass, which checks the comparison against how Cassandra itself
// stores a schema (class names, default sub-options, numbers).
func TestSetupReusesOnlyTheSchemaTheRunAsks(t *testing.T) {
	c := cluster(t)
	s := ddlSession(t, c)
	const ks = "it_reuse"
	dropKeyspace(t, c, s, ks)
	full := func(b *builders.BenchmarkRunBuilder) {
		b.Profile(cbv1.ProfileUserWide).ReplicationFactor(2)
		sc := &b.Obj().Spec.Schema
		sc.Indexes = []cbv1.Index{{Column: "userid"}, {Column: "email"}, {Column: "framework"}, {Column: "status", Kind: "sai"}}
		sc.Compaction = &cbv1.Compaction{Class: "LeveledCompactionStrategy", Options: map[string]string{"sstable_size_in_mb": "160"}}
		sc.DefaultTTLSeconds = new(int32(600))
		sc.TableOptions = &cbv1.TableOptions{
			Compression:         map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "16"},
			Caching:             &cbv1.Caching{Keys: "NONE"},
			GCGraceSeconds:      new(int32(3600)),
			BloomFilterFPChance: "0.1",
		}
	}
	run := func(configure func(*builders.BenchmarkRunBuilder), recreate bool) error {
		sp := spec(ks, configure)
		sp.Schema.Recreate = recreate
		_, err := setup.Run(context.Background(), setup.Config{Spec: sp, Conn: connOptions(c), Log: testLog{t}})
		return err
	}
	if err := run(full, true); err != nil {
		t.Fatalf("creating the schema: %v", err)
	}
	if err := run(full, false); err != nil {
		t.Fatalf("the same spec again was refused: %v", err)
	}

	for name, tc := range map[string]struct {
		configure func(*builders.BenchmarkRunBuilder)
		want      []string
	}{
		"another replication factor": {
			configure: func(b *builders.BenchmarkRunBuilder) { full(b); b.ReplicationFactor(1) },
			want:      []string{"keyspace it_reuse has replication {class: SimpleStrategy, replication_factor: 2}, the run asks {class: SimpleStrategy, replication_factor: 1}"},
		},
		"compaction left at the default": {
			configure: func(b *builders.BenchmarkRunBuilder) { full(b); b.Obj().Spec.Schema.Compaction = nil },
			want:      []string{"table it_reuse.users has compaction {class: LeveledCompactionStrategy", "set by the run that created it"},
		},
		"other table options and indexes": {
			configure: func(b *builders.BenchmarkRunBuilder) {
				full(b)
				sc := &b.Obj().Spec.Schema
				sc.Indexes = sc.Indexes[:1]
				sc.DefaultTTLSeconds = new(int32(60))
				sc.TableOptions.BloomFilterFPChance = "0.01"
			},
			want: []string{
				"table it_reuse.users has index users_email_idx on email, which the run does not create",
				"table it_reuse.users has default_time_to_live 600, the run asks 60",
				"table it_reuse.users has bloom_filter_fp_chance 0.1, the run asks 0.01",
			},
		},
		"another table in the keyspace is created": {
			configure: func(b *builders.BenchmarkRunBuilder) { b.ReplicationFactor(2) },
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := run(tc.configure, false)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("setup reused a keyspace that is not what the run asks")
			}
			for _, w := range append(tc.want, "set schema.recreate: true to drop and create it, or change the spec") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}

	// The keyspace is cassbench's own (every table carries the marker), so recreating it needs
	// no allowance.
	if err := run(func(b *builders.BenchmarkRunBuilder) { full(b); b.ReplicationFactor(1) }, true); err != nil {
		t.Fatalf("recreating a keyspace cassbench created: %v", err)
	}
}

// A table given as CQL with options in its own WITH clause is reused when asked again.
func TestSetupReusesACQLTableWithItsOwnOptions(t *testing.T) {
	c := cluster(t)
	s := ddlSession(t, c)
	const ks = "it_reuse_cql"
	dropKeyspace(t, c, s, ks)
	table := func(b *builders.BenchmarkRunBuilder) {
		b.CQL(`CREATE TABLE events (k int, at timestamp, v varchar, tags set<text>, PRIMARY KEY ((k), at))
			WITH CLUSTERING ORDER BY (at DESC)
			AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 1}
			AND default_time_to_live = 86400`)
		b.Obj().Spec.Schema.Indexes = []cbv1.Index{{Column: "tags"}}
	}
	for i, recreate := range []bool{true, false, false} {
		sp := spec(ks, table)
		sp.Schema.Recreate = recreate
		if _, err := setup.Run(context.Background(), setup.Config{Spec: sp, Conn: connOptions(c), Log: testLog{t}}); err != nil {
			t.Fatalf("setup %d (recreate %t): %v", i, recreate, err)
		}
	}
}

// schema.recreate drops only a keyspace cassbench created or one the allowance lists; any
// other is refused before anything is dropped.
func TestRecreateDropsOnlyKeyspacesItMay(t *testing.T) {
	c := cluster(t)
	s := ddlSession(t, c)
	const ks = "it_users_own"
	dropKeyspace(t, c, s, ks)
	for _, stmt := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".orders (id int PRIMARY KEY, total int)",
		"INSERT INTO " + ks + ".orders (id, total) VALUES (1, 42)",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := s.AwaitSchemaAgreement(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	sp := spec(ks, nil)
	_, err := setup.Run(context.Background(), setup.Config{Spec: sp, Conn: connOptions(c), Log: testLog{t}})
	if err == nil {
		t.Fatal("setup dropped a keyspace cassbench did not create")
	}
	for _, w := range []string{"would drop keyspace it_users_own, which cassbench did not create", "orders", cbv1.AllowDropKeyspacesAnnotation, "nothing was dropped"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not say %q:\n%v", w, err)
		}
	}
	var total int
	if err := s.Query("SELECT total FROM " + ks + ".orders WHERE id = 1").Scan(&total); err != nil || total != 42 {
		t.Fatalf("the user's row after the refusal: %d, %v", total, err)
	}

	if _, err := setup.Run(context.Background(), setup.Config{Spec: sp, Conn: connOptions(c), Log: testLog{t}, AllowDrop: []string{"it_users_*"}}); err != nil {
		t.Fatalf("setup with the keyspace allowed: %v", err)
	}
	var n int
	if err := s.Query("SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'orders'", ks).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the allowed keyspace was not recreated: orders tables %d, %v", n, err)
	}
}

// With auto_snapshot on (Cassandra's default) every recreating drop leaves a snapshot on each
// node; setup clears those it left (here through nodetool, as on the local stack), and keeps
// a snapshot someone took.
func TestRecreateClearsTheSnapshotsOfItsDrop(t *testing.T) {
	c := cluster(t)
	s := ddlSession(t, c)
	const ks = "it_snapshots_cleared"
	dropKeyspace(t, c, s, ks)
	cfg := setup.Config{Spec: spec(ks, nil), Conn: connOptions(c), Log: testLog{t}, Snapshots: setup.LocalNodetool("../../hack/cassandra.sh", c.Layout().Offset)}
	for run := range 3 {
		if run == 2 {
			out, err := exec.Command("../../hack/cassandra.sh", "nodetool", "--node", "1", "snapshot", "-t", "mine", "--", ks).CombinedOutput()
			if err != nil {
				t.Fatalf("taking a snapshot of our own: %v: %s", err, out)
			}
		}
		r, err := setup.Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("setup %d: %v", run, err)
		}
		left := snapshotsOf(t, s, ks)
		want := map[string][]string{}
		if run == 2 {
			want = map[string][]string{c.Hosts[0]: {"mine"}}
		}
		if !sameSnapshots(want, left) {
			t.Fatalf("after recreating setup %d the nodes keep snapshots %v of %s, want %v", run, left, ks, want)
		}
		if wantReport := len(want); r.Snapshots != wantReport {
			t.Errorf("setup %d reported %d nodes with snapshots, want %d", run, r.Snapshots, wantReport)
		}
		// Data for the next drop to snapshot.
		if err := s.Query("INSERT INTO "+ks+".key_value (key, value) VALUES (?, 0x00)", run).Exec(); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotsOf lists, per node address, the snapshots of keyspace ks that system_views shows.
func snapshotsOf(t *testing.T, s *gocql.Session, ks string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, h := range s.GetHosts() {
		iter := s.Query("SELECT name, keyspace_name FROM system_views.snapshots").SetHostID(h.HostID()).Iter()
		var name, keyspace string
		seen := map[string]bool{}
		for iter.Scan(&name, &keyspace) {
			if keyspace == ks && !seen[name] {
				seen[name] = true
				out[h.ConnectAddress().String()] = append(out[h.ConnectAddress().String()], name)
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("listing snapshots on %s: %v", h.ConnectAddress(), err)
		}
	}
	return out
}

func sameSnapshots(want, got map[string][]string) bool {
	if len(want) != len(got) {
		return false
	}
	for node, names := range want {
		if strings.Join(names, ",") != strings.Join(got[node], ",") {
			return false
		}
	}
	return true
}
