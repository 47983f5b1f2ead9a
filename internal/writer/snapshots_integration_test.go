package writer_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/setup"
)

// A recreating run drops its keyspace, and with auto_snapshot on (Cassandra's default) each
// drop leaves a snapshot that CQL cannot clear: setup lists them on every node and says how to
// clear them or stop them, instead of letting a sweep fill the disks unseen.
func TestSetupReportsSnapshotsOfDroppedKeyspace(t *testing.T) {
	c := cluster(t)
	const ks = "it_snapshots"
	t.Cleanup(func() {
		for i := range c.Hosts {
			var out bytes.Buffer
			err := localcassandra.New(nil).Nodetool(context.Background(), i+1, &out, &out, "clearsnapshot", "--all", "--", ks)
			if err != nil {
				t.Logf("clearing the test's snapshots on node %d: %v: %s", i+1, err, out.String())
			}
		}
	})
	sess, err := cql.Connect(connOptions(c))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := spec(ks, nil)
	var log bytes.Buffer
	snapshots := 0
	for run := range 3 {
		log.Reset()
		r, err := setup.Run(context.Background(), setup.Config{Spec: s, AllowDrop: testKeyspaces, Conn: connOptions(c), Log: &log})
		if err != nil {
			t.Fatalf("setup %d: %v", run, err)
		}
		snapshots = r.Snapshots
		// Data for the next drop to snapshot.
		if err := sess.Query("INSERT INTO "+ks+".key_value (key, value) VALUES (?, 0x00)", run).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	if snapshots == 0 {
		t.Fatalf("after three recreating setups no node reported snapshots of %s; log:\n%s", ks, log.String())
	}
	if want := "nodetool clearsnapshot --all -- " + ks; !strings.Contains(log.String(), want) {
		t.Errorf("setup log does not say how to clear the snapshots (%q):\n%s", want, log.String())
	}
	t.Logf("%d nodes keep snapshots; setup said:\n%s", snapshots, log.String())
}
