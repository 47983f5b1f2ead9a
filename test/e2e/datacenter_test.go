//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
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
