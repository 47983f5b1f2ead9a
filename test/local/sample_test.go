package local

import (
	"fmt"
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
)

// A sample run end to end: the datacenter grows from one node to two and is tuned
// (concurrent_writes 32 -> 64, heap 512M -> 768M) by real restarts, three writers load it at a
// fixed rate, the results match what an independent client counts in the table and what the
// nodes count of it over the window, and the datacenter is back to one node and its original
// config afterwards.
func TestSampleRunTunesMeasuresAndRestores(t *testing.T) {
	const name = "sample"
	env, ctx := scenario(t, name)
	run := newRun(env, name).
		Size(2).
		CassandraYaml(map[string]any{"concurrent_writes": 64}).
		JvmOptions(map[string]any{"max_heap_size": "768M", "initial_heap_size": "768M"}).
		Writers(3).Concurrency(8).Rate(600).Duration(20 * time.Second).
		Obj()
	create(ctx, t, env, run)

	// While the writers run, both real nodes run with the run's settings.
	waitRun(ctx, t, env, name, 6*time.Minute, "running", func(r *cbv1.BenchmarkRun) bool {
		return r.Status.Phase == cbv1.PhaseRunning
	})
	if got := env.Nodes.Running(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("running nodes during the run: %v, want [1 2]", got)
	}
	for _, i := range []int{1, 2} {
		if heap := env.Nodes.HeapOf(i); heap != "768M" {
			t.Errorf("node %d runs with -Xmx%s during the run, want 768M", i, heap)
		}
		if got := nodeSetting(ctx, t, i, "concurrent_writes"); got != "64" {
			t.Errorf("node %d concurrent_writes = %q during the run, want 64", i, got)
		}
	}

	run = waitFinished(ctx, t, env, name, 5*time.Minute)
	if run.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("phase %s, want Succeeded; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	st, res := run.Status.Datacenter, run.Status.Results
	if st == nil || res == nil {
		t.Fatalf("status has no datacenter or results: %+v", run.Status)
	}
	if !slices.Contains(st.SettingsVerified, "concurrent_writes") || st.Nodes != 2 {
		t.Errorf("setup verified %v on %d nodes, want concurrent_writes on 2", st.SettingsVerified, st.Nodes)
	}
	if res.WritersReported != 3 || res.Writes == nil {
		t.Fatalf("results from %d writers (writes %v), want 3 with writes", res.WritersReported, res.Writes)
	}
	checkServerFigures(t, res)
	if c := cond(run, cbv1.ConditionDatacenterRestored); c.Reason != cbv1.ReasonRestored {
		t.Errorf("DatacenterRestored is %s %q, want reason %s", c.Reason, c.Message, cbv1.ReasonRestored)
	}

	// The controller set up only once cass-operator had applied its patch. The Job's creation
	// time is whole seconds (rounded down), so it was created before the second after it; a read
	// of the datacenter sent at notBefore still found the patch unapplied.
	notBefore, ok := env.SettledAfter(st.PatchedGeneration)
	if !ok || notBefore.IsZero() {
		t.Errorf("cass-operator was never seen applying generation %d after it was patched", st.PatchedGeneration)
	}
	setup := &batchv1.Job{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: env.Namespace, Name: jobs.SetupName(run)}, setup); err != nil {
		t.Fatal(err)
	}
	if created := setup.CreationTimestamp.Time; !created.Add(time.Second).After(notBefore) {
		t.Errorf("setup Job created at %s, but the datacenter was still unapplied at %s", created, notBefore)
	}

	checkRestored(ctx, t, env)

	// An independent client counts what the writers say they wrote; the data of node 2 was
	// streamed to node 1 when it was decommissioned.
	var rows int64
	q := session(t, NodeIP(1)).Query(fmt.Sprintf("SELECT COUNT(*) FROM %q.key_value", run.Spec.Schema.Keyspace)).
		Consistency(gocql.All)
	if err := q.ScanContext(ctx, &rows); err != nil {
		t.Fatalf("counting rows: %v", err)
	}
	if rows != res.Operations {
		t.Errorf("the table holds %d rows; status.results.operations is %d", rows, res.Operations)
	}
	w := res.Writes
	t.Logf("figures: %d operations in %d ms, %d ops/s; response p50 %d us, p99 %d us; service p99 %d us; rows counted %d; timeouts %s",
		res.Operations, res.WindowMillis, res.OpsPerSecond, w.Response.P50, w.Response.P99, w.Service.P99, rows, res.TimeoutsPerOperation)
}

// checkServerFigures: the writers run as a non-root user, so they cannot read the nodes'
// processes and read each node's CPU, GC and SSTables from its management API's metrics
// endpoint, as on cass-operator pods (the played agent's, mgmtapi.Metrics): every node's
// figures are there, none said to be missing. At RF 1 the mutations the nodes applied over
// the window are the writes completed in it: the nodes are read for the window's start
// before any window write (after a warm-up, once every writer's drained).
func checkServerFigures(t *testing.T, res *cbv1.Results) {
	t.Helper()
	if res.Server == nil || len(res.Server.Nodes) == 0 {
		t.Errorf("no server figures: %+v", res.Server)
		return
	}
	for _, n := range res.Server.Nodes {
		if n.CPUMillicores <= 0 || n.GC == nil || n.SSTables == nil || len(n.NotAvailable) > 0 {
			t.Errorf("node %s: CPU %dm, GC %+v, SSTables %+v, not available %q", n.Node, n.CPUMillicores, n.GC, n.SSTables, n.NotAvailable)
		}
	}
	if res.Writes == nil {
		return
	}
	t.Logf("server: %d mutations for %d writes; nodes %+v", res.Server.Total.Mutations, res.Writes.Operations, res.Server.Nodes)
	if res.Writes.Failed == 0 && res.Server.Total.Mutations != res.Writes.Operations {
		t.Errorf("the nodes applied %d mutations over the window for %d writes at RF 1 (errors %q)",
			res.Server.Total.Mutations, res.Writes.Operations, res.Server.Errors)
	}
}
