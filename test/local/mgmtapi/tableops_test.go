package mgmtapi

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/nodeops"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// nodeOpsOffset places this test's node on 127.0.0.101, beside the shared cluster and the
// other tests' private ones (cassandra.Private).
const nodeOpsOffset = 100

// TestFlushCompactAndDrainThroughTheAPIOnARealNode makes the calls of a run's Flush, Compact
// and Drain disruptions with cassbench's own client (internal/nodeops) through the played
// management API to a real Cassandra node of its own, and checks what each did to the node:
// a row only in the memtable is on disk in an SSTable after the flush; three SSTables are one
// after the compaction, with every row; after the drain the node says DRAINED, has flushed
// what it held, and takes no more writes. The node is draining's casualty: the test's end
// kills it with its cluster.
func TestFlushCompactAndDrainThroughTheAPIOnARealNode(t *testing.T) {
	c := cassandra.Private(t, nodeOpsOffset, cassandra.Options{Nodes: 1})
	layout := c.Layout()
	node := &LocalNode{Index: 1, Cluster: func(log io.Writer) *localcassandra.Cluster {
		return &localcassandra.Cluster{Layout: layout, Log: log, UsersLockHeld: true}
	}}
	defer node.Close()
	srv, log := serve(t, node)
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	api := nodeops.Client{Port: p}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	const ks, table = "it_nodeops", "t"
	// Background compaction off: the SSTables stay as the flushes leave them until the
	// major compaction the test asks for.
	for _, stmt := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + "." + table + " (k int PRIMARY KEY, v text) WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}",
	} {
		mustQuery(ctx, t, node, stmt)
	}
	insert := func(k int) {
		t.Helper()
		mustQuery(ctx, t, node, "INSERT INTO "+ks+"."+table+" (k, v) VALUES (?, 'v')", k)
	}
	sstables := func() int {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(layout.NodeDir(1), "data", ks, table+"-*", "*-Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		return len(files)
	}

	insert(1)
	if n := sstables(); n != 0 {
		t.Fatalf("%d SSTables before any flush, want the row in the memtable only", n)
	}
	if err := api.Flush(ctx, host, ks, table); err != nil {
		t.Fatalf("flush: %v; log:\n%s", err, log.String())
	}
	if n := sstables(); n != 1 {
		t.Fatalf("%d SSTables after the flush, want the memtable's one", n)
	}

	for k := 2; k <= 3; k++ { // two more SSTables, flushed by nodetool itself
		insert(k)
		if _, err := node.Nodetool(ctx, "flush", "--", ks, table); err != nil {
			t.Fatal(err)
		}
	}
	if n := sstables(); n != 3 {
		t.Fatalf("%d SSTables before the compaction, want 3", n)
	}
	if err := api.Compact(ctx, host, ks, table); err != nil {
		t.Fatalf("compact: %v; log:\n%s", err, log.String())
	}
	// The compacted SSTables' files go once their last reader lets go of them.
	waitFor(t, 30*time.Second, func() bool { return sstables() == 1 }, func() string {
		return strconv.Itoa(sstables()) + " SSTables after the major compaction, want 1"
	})
	if rows := mustQuery(ctx, t, node, "SELECT k FROM "+ks+"."+table); len(rows) != 3 {
		t.Fatalf("%d rows after the compaction, want 3", len(rows))
	}

	insert(4)
	if err := api.Drain(ctx, host); err != nil {
		t.Fatalf("drain: %v; log:\n%s", err, log.String())
	}
	if n := sstables(); n != 2 {
		t.Errorf("%d SSTables after the drain, want the compacted one and the memtable's", n)
	}
	out, err := node.Nodetool(ctx, "netstats")
	if err != nil || !strings.Contains(out, "Mode: DRAINED") {
		t.Errorf("nodetool netstats after the drain: %v\n%s", err, out)
	}
	if _, err := node.Query(ctx, "INSERT INTO "+ks+"."+table+" (k, v) VALUES (5, 'v')"); err == nil {
		t.Error("the drained node took a write")
	}
	if log.String() != "" {
		t.Errorf("the server complained:\n%s", log.String())
	}
}

func mustQuery(ctx context.Context, t *testing.T, n *LocalNode, stmt string, values ...any) []map[string]any {
	t.Helper()
	rows, err := n.Query(ctx, stmt, values...)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// waitFor polls ok every 100 ms until it holds, failing with why() after limit.
func waitFor(t *testing.T, limit time.Duration, ok func() bool, why func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal(why())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
