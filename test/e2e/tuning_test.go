//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A tuning run on kind's one-node dc1: concurrent_writes and the heap changed for the run,
// which cass-operator rolls out by replacing the StatefulSet's one pod; the setup Job reads
// both back from the node (its settingsVerified) before any write is measured, and dc1's
// config is given back, rolled again. With one node, cass-operator's every pass during a roll
// fails until the new pod's container has run 10 s and waits in its error backoff (up to
// 1000 s) with nothing to wake it; the run's nudges (cbv1.ReconcileRequestedAnnotation) keep
// both rolls within half a minute of that, and none is left on dc1 after.
func TestTuningRunRollsTheStatefulSetVerifiesAndRestores(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+15*time.Minute)
	defer cancel()
	k := connect(t)
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		r.Spec.Datacenter.Config = &cbv1.DatacenterConfig{
			CassandraYaml:    rawJSON(t, map[string]any{"concurrent_writes": 48}),
			JvmServerOptions: rawJSON(t, map[string]any{"initial_heap_size": "640M", "max_heap_size": "640M"}),
		}
	})
	revision := k.statefulSet(ctx, t).Status.UpdateRevision
	began := time.Now()
	before := k.start(ctx, t, run)
	if before.size != 1 {
		t.Fatalf("dc1 has %d nodes; this scenario starts from kind-up's one", before.size)
	}
	rolled := false
	done := k.waitFinished(ctx, t, run, func(*cbv1.BenchmarkRun) {
		rolled = rolled || k.statefulSet(ctx, t).Status.UpdateRevision != revision
	})
	succeeded(t, done)
	t.Logf("the run finished in %s", time.Since(began).Round(time.Second))
	if !rolled {
		t.Errorf("the StatefulSet's revision stayed %s during the run: the new config was not rolled out", revision)
	}
	dc := done.Status.Datacenter
	if dc == nil {
		t.Fatal("no datacenter status")
	}
	t.Logf("settings verified %q, unverified %q", dc.SettingsVerified, dc.SettingsUnverified)
	for _, want := range []string{"concurrent_writes", "jvm-server-options.max_heap_size"} {
		if !slices.Contains(dc.SettingsVerified, want) {
			t.Errorf("setup did not verify %s on the node: verified %q, unverified %q", want, dc.SettingsVerified, dc.SettingsUnverified)
		}
	}
	k.checkRestored(ctx, t, done, before)
	gaveBack := time.Now()
	k.waitStatefulSet(ctx, t, "rolled back and ready", func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdateRevision == s.Status.CurrentRevision && s.Status.UpdatedReplicas == *s.Spec.Replicas &&
			s.Status.ReadyReplicas == *s.Spec.Replicas
	})
	t.Logf("the give-back roll was done %s after the run finished", time.Since(gaveBack).Round(time.Second))
	k.waitNoNudge(ctx, t, before)
	t.Logf("the scenario took %s", time.Since(began).Round(time.Second))
}

func rawJSON(t *testing.T, v any) *runtime.RawExtension {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &runtime.RawExtension{Raw: b}
}
