package nodewatch_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// The shared test cluster's options: tests asking for the same share it.
var clusterOptions = cassandra.Options{Nodes: 2, Auth: true}

func connect(t *testing.T) *gocql.Session {
	t.Helper()
	c := cassandra.Start(t, clusterOptions)
	s, err := cql.Connect(cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// reading is the test's own read of one node's thread pools and the table's disk use, with
// plain queries, to check the sampler against.
type reading struct{ flushes, compactions, tableMiB int64 }

func read(t *testing.T, s *gocql.Session, hostID, ks, table string) reading {
	t.Helper()
	var r reading
	iter := s.Query("SELECT name, completed_tasks FROM system_views.thread_pools").SetHostID(hostID).Iter()
	var name string
	var done int64
	for iter.Scan(&name, &done) {
		switch name {
		case "MemtableFlushWriter":
			r.flushes = done
		case "CompactionExecutor":
			r.compactions = done
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("SELECT mebibytes FROM system_views.disk_usage WHERE keyspace_name = ? AND table_name = ?", ks, table).
		SetHostID(hostID).Scan(&r.tableMiB); err != nil {
		t.Fatal(err)
	}
	return r
}

// A table flushed every second and compacted as soon as two SSTables exist: the sampler's
// flushes and compactions lie between one and what the test read around it (other tables and
// other tests flush too, so the test's own reading can only be larger), and the table's disk
// use matches the test's reading exactly once the compactions have settled.
func TestSamplerCountsFlushesAndCompactions(t *testing.T) {
	s := connect(t)
	ctx := context.Background()
	const ks, table = "it_server", "flushed"
	for _, stmt := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + "." + table + " (k int PRIMARY KEY, v blob) WITH memtable_flush_period_in_ms = 1000" +
			" AND compaction = {'class': 'SizeTieredCompactionStrategy', 'min_threshold': 2}" +
			" AND compression = {'enabled': false}",
	} {
		if err := s.Query(stmt).ExecContext(ctx); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	targets := nodewatch.Targets(s, ks, table)
	if len(targets) != 2 {
		t.Fatalf("targets %v, want 2 nodes", targets)
	}
	before := map[string]reading{}
	for _, tg := range targets {
		before[tg.Node] = read(t, s, tg.HostID, ks, table)
		// Each target carries its node's datacenter, as the node itself names it: the
		// verdict of a run across datacenters names the datacenter of a node it blames.
		var dc string
		if err := s.Query("SELECT data_center FROM system.local").SetHostID(tg.HostID).Scan(&dc); err != nil {
			t.Fatal(err)
		}
		if tg.Datacenter == "" || tg.Datacenter != dc {
			t.Errorf("target %s: datacenter %q, the node says %q", tg.Node, tg.Datacenter, dc)
		}
	}

	smp := nodewatch.Start(ctx, s, targets, 500*time.Millisecond, nil)
	value := make([]byte, 16<<10)
	_, _ = rand.Read(value)
	// About 12 MiB in six bursts a second and a half apart: each burst becomes at least one
	// SSTable per node, and two make a compaction.
	for burst := 0; burst < 6; burst++ {
		for i := 0; i < 128; i++ {
			k := burst*128 + i
			if err := s.Query("INSERT INTO "+ks+"."+table+" (k, v) VALUES (?, ?)", k, value).ExecContext(ctx); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(1500 * time.Millisecond)
	}
	// Let the last flush and the compactions it starts finish, so disk use is settled.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		for _, tg := range targets {
			var tasks int
			_ = s.Query("SELECT count(*) FROM system_views.sstable_tasks").SetHostID(tg.HostID).Scan(&tasks)
			n += tasks
		}
		if n == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	got := smp.Stop(ctx)
	after := map[string]reading{}
	for _, tg := range targets {
		after[tg.Node] = read(t, s, tg.HostID, ks, table)
	}

	if got == nil || got.Error != "" || len(got.Nodes) != 2 || got.Rest != nil {
		t.Fatalf("server figures %+v", got)
	}
	var flushes, compactions, mutations int64
	for _, n := range got.Nodes {
		b, a := before[n.Node], after[n.Node]
		t.Logf("node %s: sampler %d flushes, %d compactions, %d→%d MiB; test read %d flushes, %d compactions, %d→%d MiB",
			n.Node, n.Flushes, n.Compactions, n.TableMiBBefore, n.TableMiBAfter, a.flushes-b.flushes, a.compactions-b.compactions, b.tableMiB, a.tableMiB)
		if n.Flushes < 1 || n.Flushes > a.flushes-b.flushes {
			t.Errorf("node %s: %d flushes, want 1..%d", n.Node, n.Flushes, a.flushes-b.flushes)
		}
		if n.Compactions > a.compactions-b.compactions {
			t.Errorf("node %s: %d compactions, want at most %d", n.Node, n.Compactions, a.compactions-b.compactions)
		}
		if n.TableMiBBefore != b.tableMiB || n.TableMiBAfter != a.tableMiB {
			t.Errorf("node %s: table %d→%d MiB, test read %d→%d", n.Node, n.TableMiBBefore, n.TableMiBAfter, b.tableMiB, a.tableMiB)
		}
		flushes += n.Flushes
		compactions += n.Compactions
		mutations += n.Mutations
	}
	if compactions < 1 {
		t.Errorf("no compaction counted")
	}
	if mutations < 768 {
		t.Errorf("%d mutations, want at least the 768 rows written", mutations)
	}
	var mib int64
	for _, n := range got.Nodes {
		mib += n.TableMiBAfter
	}
	if mib < 6 {
		t.Errorf("table holds %d MiB after the load, want about 12", mib)
	}
	t.Logf("flushes %d, compactions %d, mutations %d, table %d MiB", flushes, compactions, mutations, mib)
	// The timeline's intervals run from the same first snapshots to the same last ones, so
	// its counts add up to the window's exactly; the bursts 1.5 s apart, sampled every
	// 0.5 s, land in several points.
	tl := got.Timeline
	if tl == nil || len(tl.Points) < 4 {
		t.Fatalf("server timeline %+v", tl)
	}
	var tlFlushes, tlCompactions, withFlushes int64
	for _, p := range tl.Points {
		tlFlushes += p.Flushes
		tlCompactions += p.Compactions
		if p.Flushes > 0 {
			withFlushes++
		}
	}
	if tlFlushes != flushes || tlCompactions != compactions || withFlushes < 2 {
		t.Errorf("timeline: %d flushes in %d points, %d compactions; the window's %d and %d", tlFlushes, withFlushes, tlCompactions, flushes, compactions)
	}
	t.Logf("timeline: %d points every %d ms, last at %d ms", len(tl.Points), tl.IntervalMillis, tl.Points[len(tl.Points)-1].AtMillis)
}
