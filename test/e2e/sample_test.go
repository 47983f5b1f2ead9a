//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// The kind-demo sample, as the README shows it, Succeeded with results from every writer and
// the nodes' server figures, and dc1 given back.
func TestKindDemoRunSucceedsAndRestoresTheDatacenter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	k := connect(t)
	run := k.sampleRun(t, nil)
	before := k.start(ctx, t, run)
	done := k.waitFinished(ctx, t, run, nil)
	succeeded(t, done)

	r := done.Status.Results
	if r == nil {
		t.Fatal("no results in status")
	}
	t.Logf("results: %d operations, %d ops/s, window %d ms, %d writers", r.Operations, r.OpsPerSecond, r.WindowMillis, r.WritersReported)
	if r.Operations <= 0 || r.OpsPerSecond <= 0 || r.WindowMillis <= 0 {
		t.Errorf("empty results: %+v", r)
	}
	if r.WritersReported != run.Spec.Writers.Replicas {
		t.Errorf("%d writers reported, want %d", r.WritersReported, run.Spec.Writers.Replicas)
	}
	if r.Writes == nil || r.Writes.Operations <= 0 || r.Writes.Response.P99 <= 0 {
		t.Errorf("no write latencies: %+v", r.Writes)
	}
	checkServerFigures(t, r)
	k.checkRestored(ctx, t, done, before)
}

// checkServerFigures: the writers read each node's CPU, GC and SSTables from the metrics
// endpoint of its pod's management API (port 9000), whose played agent in the Cassandra
// container reads them from the JVM beside it: every node's figures are there, none said to
// be missing, and at RF 1 the mutations the nodes applied over the window are the writes
// completed in it (the nodes are read for the window's start once every writer's warm-up
// drained).
func checkServerFigures(t *testing.T, r *cbv1.Results) {
	t.Helper()
	if r.Bottleneck != nil {
		t.Logf("verdict %s: %q", r.Bottleneck.Verdict, r.Bottleneck.Evidence)
	}
	if r.Server == nil || len(r.Server.Nodes) == 0 {
		t.Errorf("no server figures: %+v", r.Server)
		return
	}
	for _, n := range r.Server.Nodes {
		t.Logf("node %s: CPU %dm of %dm, GC %+v, SSTables %+v, mutations %d, not available %q",
			n.Node, n.CPUMillicores, n.CPULimitMillicores, n.GC, n.SSTables, n.Mutations, n.NotAvailable)
		if n.CPUMillicores <= 0 || n.GC == nil || n.SSTables == nil || len(n.NotAvailable) > 0 {
			t.Errorf("node %s lacks server figures: CPU %dm, GC %+v, SSTables %+v, not available %q",
				n.Node, n.CPUMillicores, n.GC, n.SSTables, n.NotAvailable)
		}
	}
	if r.Writes != nil && r.Writes.Failed == 0 && r.Server.Total.Mutations != r.Writes.Operations {
		t.Errorf("the nodes applied %d mutations over the window for %d writes at RF 1 (errors %q)",
			r.Server.Total.Mutations, r.Writes.Operations, r.Server.Errors)
	}
}
