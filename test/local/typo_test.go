package local

import (
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A misspelt setting fails the run before the datacenter is changed and before any load.
//
// cass-operator v1.31 builds a Cassandra 5.0 node's config with k8ssandra-client, which merges
// every cassandra-yaml key into cassandra.yaml unchecked, and Cassandra then refuses to start
// ("Invalid yaml. Please remove properties [concurent_writes]"); the played init container
// renders it the same way, and the real node refuses it. So the controller checks the names on the running nodes first (the
// preflight Job), and the datacenter is never rolled.
func TestTuningTypoFailsBeforeAnyLoadAndRestores(t *testing.T) {
	const name = "typo"
	env, ctx := scenario(t, name)
	run := newRun(env, name).Size(2).CassandraYaml(map[string]any{"concurent_writes": 64}).Writers(2).Obj()
	create(ctx, t, env, run)

	run = waitFinished(ctx, t, env, name, 5*time.Minute)
	if run.Status.Phase != cbv1.PhaseFailed {
		t.Fatalf("phase %s, want Failed; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	failed := cond(run, cbv1.ConditionSucceeded)
	if failed.Reason != cbv1.ReasonSettingsInvalid || !strings.Contains(failed.Message, `"concurent_writes"`) {
		t.Errorf("the failure does not name the misspelt setting: %s: %s", failed.Reason, failed.Message)
	}
	if st := run.Status.Datacenter; st == nil || st.Changed || st.PatchedGeneration != 0 {
		t.Errorf("the datacenter was patched: %+v", st)
	}
	for _, p := range env.Runner.Processes() {
		if p.Labels[cbv1.RunLabel] == name && p.Labels[cbv1.ComponentLabel] != "preflight" {
			t.Errorf("%s pod %s started", p.Labels[cbv1.ComponentLabel], p.Name)
		}
	}
	checkRestored(ctx, t, env)
}
