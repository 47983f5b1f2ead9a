package local

import (
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A manager whose container is killed with SIGKILL as soon as its patch of the datacenter
// lands — before it can record the patch in status — and started again by the kubelet still
// puts the datacenter back when the run ends: restoring is decided from what the datacenter looks like, not from a flag the dead
// manager meant to write. The envtest harness TestCrashAfterEveryWrite covers every write;
// this one does it with a real process, real nodes and the real Job controller.
func TestManagerKilledRightAfterTheDatacenterPatchStillRestoresIt(t *testing.T) {
	const name = "patch-crash"
	env, ctx := scenario(t, name)
	before := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, env.DatacenterKey(), before); err != nil {
		t.Fatal(err)
	}
	run := newRun(env, name).CassandraYaml(map[string]any{"concurrent_writes": 64}).
		Writers(1).Concurrency(4).Rate(100).Duration(5 * time.Second).Obj()
	create(ctx, t, env, run)

	deadline := time.Now().Add(5 * time.Minute)
	for {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err == nil && dc.Generation > before.Generation {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not patch the datacenter within 5m")
		}
		time.Sleep(10 * time.Millisecond)
	}
	killManager(ctx, t, env)

	run = waitFinished(ctx, t, env, name, 6*time.Minute)
	if run.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("phase %s, want Succeeded; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	if c := cond(run, cbv1.ConditionDatacenterRestored); c.Reason != cbv1.ReasonRestored {
		t.Errorf("DatacenterRestored %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	checkRestored(ctx, t, env)
}
