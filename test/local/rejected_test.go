package local

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A value Cassandra refuses: the preflight knows the name concurrent_writes, so the datacenter
// is patched, cass-operator rolls its pod, and the node refuses to start ("concurrent_writes
// must be at least 2"). The run fails at deadlines.prepare with a message naming the pod that
// is not ready and its container's state, not only the datacenter's conditions; the
// datacenter is then given back and unlocked.
//
// Giving it back needs cass-operator's failure detection: it holds a rolling update while a
// pod it started is not ready, so the restored config reaches the pod only once the cassandra
// container, restarted by its failing liveness probe, is seen in CrashLoopBackOff.
func TestRejectedValueFailsAtThePrepareDeadlineNamingThePod(t *testing.T) {
	const name = "rejected-value"
	env, ctx := scenario(t, name)
	run := newRun(env, name).CassandraYaml(map[string]any{"concurrent_writes": -1}).Writers(1).Obj()
	run.Spec.Deadlines.Prepare = &metav1.Duration{Duration: 90 * time.Second}
	create(ctx, t, env, run)

	run = waitFinished(ctx, t, env, name, 6*time.Minute)
	if run.Status.Phase != cbv1.PhaseFailed {
		t.Fatalf("phase %s, want Failed; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	c := cond(run, cbv1.ConditionDatacenterReady)
	pod := env.Cluster + "-" + env.Datacenter + "-default-sts-0"
	if c.Reason != cbv1.ReasonPrepareDeadlineExceeded || !strings.Contains(c.Message, "pods not ready: "+pod+" (Running; container cassandra ") {
		t.Errorf("DatacenterReady is %s %q, want %s naming pod %s and its cassandra container", c.Reason, c.Message, cbv1.ReasonPrepareDeadlineExceeded, pod)
	}
	if st := run.Status.Datacenter; st == nil || !st.Changed || st.PatchedGeneration == 0 {
		t.Errorf("the datacenter was not patched: %+v", st)
	}
	for _, p := range env.Runner.Processes() {
		if p.Labels[cbv1.RunLabel] == name && p.Labels[cbv1.ComponentLabel] == "writer" {
			t.Errorf("writer pod %s started", p.Name)
		}
	}
	t.Logf("failure: %s", c.Message)
	checkRestored(ctx, t, env)
}
