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
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// statefulSet is the one cass-operator runs dc1's rack in (cluster demo, rack default).
const statefulSet = "demo-dc1-default-sts"

// A run that grows dc1 from one node to two: cass-operator scales the StatefulSet under the
// real kubelet (a second Cassandra pod with its own PVC joins the ring), the setup Job sees both
// nodes, the run Succeeds, and dc1 is given back at one node, the StatefulSet scaled down again
// (cass-operator decommissions the node first).
func TestScaleRunGrowsTheDatacenterAndGivesItBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+15*time.Minute)
	defer cancel()
	k := connect(t)
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		r.Spec.Datacenter.Size = new(int32(2))
	})
	before := k.start(ctx, t, run)
	if before.size != 1 {
		t.Fatalf("dc1 has %d nodes; this scenario starts from kind-up's one", before.size)
	}
	var most int32
	done := k.waitFinished(ctx, t, run, func(*cbv1.BenchmarkRun) {
		most = max(most, k.statefulSet(ctx, t).Status.ReadyReplicas)
	})
	succeeded(t, done)
	if dc := done.Status.Datacenter; dc == nil || dc.Nodes != 2 || dc.Size != 2 {
		t.Errorf("the run's datacenter status %+v, want 2 nodes seen by setup at size 2", dc)
	}
	if most != 2 {
		t.Errorf("the StatefulSet had at most %d ready replicas during the run, want 2", most)
	}
	k.checkRestored(ctx, t, done, before)
	k.waitStatefulSet(ctx, t, "scaled back to 1 ready replica", func(s *appsv1.StatefulSet) bool {
		return *s.Spec.Replicas == 1 && s.Status.Replicas == 1 && s.Status.ReadyReplicas == 1
	})
}

// A tuning run: concurrent_writes and the heap changed for the run, which cass-operator rolls
// out by replacing the StatefulSet's pod; the setup Job reads both back from the node (its
// settingsVerified) before any write is measured, and dc1's config is given back, rolled again.
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
	before := k.start(ctx, t, run)
	rolled := false
	done := k.waitFinished(ctx, t, run, func(*cbv1.BenchmarkRun) {
		rolled = rolled || k.statefulSet(ctx, t).Status.UpdateRevision != revision
	})
	succeeded(t, done)
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
	k.waitStatefulSet(ctx, t, "rolled back and ready", func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdateRevision == s.Status.CurrentRevision && s.Status.UpdatedReplicas == *s.Spec.Replicas &&
			s.Status.ReadyReplicas == *s.Spec.Replicas
	})
}

func (k *cluster) statefulSet(ctx context.Context, t *testing.T) *appsv1.StatefulSet {
	t.Helper()
	s := &appsv1.StatefulSet{}
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: statefulSet}, s); err != nil {
		t.Fatalf("reading StatefulSet %s: %v", statefulSet, err)
	}
	return s
}

// waitStatefulSet waits up to ten minutes for the StatefulSet to be as ok says.
func (k *cluster) waitStatefulSet(ctx context.Context, t *testing.T, what string, ok func(*appsv1.StatefulSet) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		s := k.statefulSet(ctx, t)
		if ok(s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("StatefulSet %s not %s in 10m: spec.replicas %d, status %+v", statefulSet, what, *s.Spec.Replicas, s.Status)
		}
		time.Sleep(5 * time.Second)
	}
}

func rawJSON(t *testing.T, v any) *runtime.RawExtension {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &runtime.RawExtension{Raw: b}
}
