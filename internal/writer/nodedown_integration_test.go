package writer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A node stopped while writers run at CL TWO under RF 2 makes writes fail as unavailable or
// timed out; the writer counts them and reports, it does not crash or hang. The verdict is
// Cluster, naming the failed operations and the node that could not be read at the end.
func TestNodeStoppedMidRun(t *testing.T) {
	c := cluster(t)
	s := spec("it_nodedown", func(b *builders.BenchmarkRunBuilder) {
		b.ReplicationFactor(2).WriteConsistency("TWO").RequestTimeout(time.Second).Duration(time.Hour).Concurrency(8)
	})
	s.Writers.Retries = ptr.To[int32](1)
	setUp(t, c, s)

	// StopNode may wait for other test processes to let go of the cluster, so the window is
	// open-ended and ends a few seconds after the node is down.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		time.Sleep(4 * time.Second) // barrier (about 2 s) and some load first
		c.StopNode(t, 2)
		time.Sleep(4 * time.Second)
		cancel()
	}()
	sums, errs := runWriters(ctx, t, c, s)
	sum := sums[0]
	if errs[0] == nil {
		t.Errorf("writer ended without error though it was interrupted")
	}
	w := sum.Writes
	if w == nil || w.OK == 0 {
		t.Fatalf("no successful writes before the node stopped: %+v", w)
	}
	if w.Unavailable+w.Timeouts() == 0 {
		t.Errorf("no unavailable or timed-out writes counted with a replica down: %+v", w)
	}
	// Only the requests in flight on the connection the node closed fail otherwise; the
	// rest meet the cluster's own answer to a missing replica.
	if w.Other > 8 {
		t.Errorf("%d writes failed with other errors, more than the 8 in flight when the node stopped: %+v", w.Other, w)
	}
	if w.Retries == 0 {
		t.Errorf("no retries counted: %+v", w)
	}
	t.Logf("ok %d, unavailable %d, write timeouts %d, client timeouts %d, other %d, retries %d",
		w.OK, w.Unavailable, w.WriteTimeout, w.ClientTimeout, w.Other, w.Retries)

	r := results.Merge(sums)
	if r == nil || r.Bottleneck == nil {
		t.Fatalf("no verdict: %+v", r)
	}
	evidence := strings.Join(r.Bottleneck.Evidence, "; ")
	t.Logf("verdict %s: %s", r.Bottleneck.Verdict, evidence)
	if r.Bottleneck.Verdict != cbv1.BottleneckCluster {
		t.Errorf("verdict %s, want Cluster", r.Bottleneck.Verdict)
	}
	if !strings.Contains(evidence, "Unavailable") && !strings.Contains(evidence, "timed out") {
		t.Errorf("the evidence names neither the unavailable nor the timed-out operations: %s", evidence)
	}
	if !strings.Contains(evidence, "could not be read") || !strings.Contains(evidence, c.Hosts[1]) {
		t.Errorf("the evidence does not name node %s as unreadable: %s", c.Hosts[1], evidence)
	}
}
