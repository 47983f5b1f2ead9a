package writer_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A node frozen mid-run (as in a long GC pause) leaves messages to it expiring on the other
// node and requests timing out, while the writers idle: the run gets the Cluster verdict,
// and the server figures show the drops.
func TestVerdictClusterWhenANodeStalls(t *testing.T) {
	c := cluster(t)
	s := spec("it_verdict_cluster", func(b *builders.BenchmarkRunBuilder) {
		b.ReplicationFactor(2).WriteConsistency("ONE").RequestTimeout(500 * time.Millisecond).Duration(10 * time.Second).Concurrency(8)
	})
	s.Writers.Retries = ptr.To[int32](0)
	setUp(t, c, s)
	go func() {
		time.Sleep(5 * time.Second) // barrier (about 2 s) and some load first
		c.PauseNode(t, 2, 4*time.Second)
	}()
	sums, _ := runWriters(context.Background(), t, c, s)
	r := results.Merge(sums)
	if r == nil || r.Server == nil || r.Bottleneck == nil {
		t.Fatalf("no server figures or verdict: %+v", r)
	}
	t.Logf("server total %+v; anomalies %q; errors %q", r.Server.Total, r.Server.Anomalies, r.Server.Errors)
	t.Logf("verdict %s: %q", r.Bottleneck.Verdict, r.Bottleneck.Evidence)
	if r.Server.NodesRead != 2 {
		t.Errorf("%d nodes read, want 2", r.Server.NodesRead)
	}
	tot := r.Server.Total
	if tot.Dropped == 0 && tot.Blocked == 0 && tot.BlockedPeak == 0 && tot.PendingPeak == 0 && tot.Hints == 0 {
		t.Errorf("a frozen node left no trace on the server side: %+v", tot)
	}
	if r.Bottleneck.Verdict != cbv1.BottleneckCluster {
		t.Errorf("verdict %s, want Cluster", r.Bottleneck.Verdict)
	}
}

// A writer held to one thread that it shares with a CPU hog, against a cluster with
// headroom, gets the Writers verdict.
func TestVerdictWritersWhenStarvedOfCPU(t *testing.T) {
	c := cluster(t)
	s := spec("it_verdict_writers", func(b *builders.BenchmarkRunBuilder) {
		b.Duration(5 * time.Second).Concurrency(4)
	})
	setUp(t, c, s)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var stop atomic.Bool
	defer stop.Store(true)
	for range 4 {
		go func() {
			for n := 0; !stop.Load(); n++ {
			}
		}()
	}
	sums := mustRun(t, c, s)
	r := results.Merge(sums)
	if r == nil || r.Bottleneck == nil {
		t.Fatalf("no verdict: %+v", r)
	}
	t.Logf("writer CPU %+v; server total %+v", *sums[0].CPU, r.Server.Total)
	t.Logf("verdict %s: %q", r.Bottleneck.Verdict, r.Bottleneck.Evidence)
	if r.Bottleneck.Verdict != cbv1.BottleneckWriters {
		t.Errorf("verdict %s, want Writers", r.Bottleneck.Verdict)
	}
}

// One request in flight against nodes with room to spare is bound by its concurrency: the
// Writers verdict, with Little's law's numbers and the busiest node's CPU, read from its
// process, as the evidence that the nodes had room (the verdict's second scenario). Run
// alone (make test-timing): other tests' load on the shared nodes is not this run's.
func TestVerdictWritersWhenOneRequestInFlight(t *testing.T) {
	timing(t)
	c := cluster(t)
	s := spec("it_verdict_little", func(b *builders.BenchmarkRunBuilder) {
		b.Duration(5 * time.Second).Concurrency(1)
	})
	setUp(t, c, s)
	r := results.Merge(mustRun(t, c, s))
	if r == nil || r.Bottleneck == nil || r.Server == nil {
		t.Fatalf("no verdict or server figures: %+v", r)
	}
	evidence := strings.Join(r.Bottleneck.Evidence, "; ")
	t.Logf("verdict %s: %s", r.Bottleneck.Verdict, evidence)
	for _, n := range r.Server.Nodes {
		t.Logf("node %s: CPU %dm of %d cores", n.Node, n.CPUMillicores, n.CPUCores)
	}
	if r.Bottleneck.Verdict != cbv1.BottleneckWriters {
		t.Errorf("verdict %s, want Writers", r.Bottleneck.Verdict)
	}
	for _, want := range []string{"1 request in flight", "Little's law", "of the CPU it could use"} {
		if !strings.Contains(evidence, want) {
			t.Errorf("the evidence lacks %q: %s", want, evidence)
		}
	}
}
