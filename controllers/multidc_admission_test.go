package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// The real apiserver installs the CRD with the rules of runs across datacenters (within its
// CEL cost budget), admits such a run, refuses a datacenter named twice and a consistency
// level that needs a datacenter the run does not name, each naming the field, and keeps
// serving a run stored as runs were before spec.datacenters, unchanged.
func TestRunAcrossDatacentersAdmission(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	two := func(name string) *cbv1.BenchmarkRun {
		run := builders.MakeBenchmarkRun(name, ns).Datacenters(
			cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2", Writers: 1, Observers: 1},
		).Writers(3).Duration(time.Minute).Obj()
		run.Spec.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy,
			Datacenters: []cbv1.DatacenterReplication{{Name: "dc1", Factor: 1}, {Name: "dc2", Factor: 1}}}
		run.Spec.Workload.WriteRatio, run.Spec.Workload.WriteConsistency = 1, "EACH_QUORUM"
		return run
	}
	if err := env.Client.Create(ctx, two("ok")); err != nil {
		t.Fatalf("a run across two datacenters refused: %v", err)
	}

	dup := two("dup")
	dup.Spec.Datacenters[1].Name = "dc1"
	err := env.Client.Create(ctx, dup, client.DryRunAll)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.datacenters[1]: Duplicate value") {
		t.Errorf("a datacenter named twice: %v", err)
	}

	third := two("third")
	third.Spec.Schema.Replication.Datacenters = append(third.Spec.Schema.Replication.Datacenters, cbv1.DatacenterReplication{Name: "dc3", Factor: 1})
	err = env.Client.Create(ctx, third, client.DryRunAll)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "workload.writeConsistency EACH_QUORUM waits for a quorum in every datacenter") {
		t.Errorf("EACH_QUORUM over a datacenter the run does not name: %v", err)
	}

	old := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cassbench.io/v1alpha1", "kind": "BenchmarkRun",
		"metadata": map[string]any{"name": "old", "namespace": ns},
		"spec": map[string]any{
			"datacenterRef": map[string]any{"name": "dc1"},
			"writers":       map[string]any{"replicas": int64(2), "duration": "1m"},
		},
	}}
	if err := env.Client.Create(ctx, old); err != nil {
		t.Fatalf("a run as written before spec.datacenters refused: %v", err)
	}
	var got cbv1.BenchmarkRun
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(old), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.DatacenterRef == nil || got.Spec.DatacenterRef.Name != "dc1" || got.Spec.Datacenters != nil || got.Spec.ReplicationLag != nil {
		t.Errorf("the old run reads back as %+v", got.Spec)
	}
	// A label patch (kubectl label) leaves the spec alone and passes the immutability rule.
	patch := client.MergeFrom(got.DeepCopy())
	got.Labels = map[string]string{"touched": "yes"}
	if err := env.Client.Patch(ctx, &got, patch); err != nil {
		t.Errorf("updating the old run's labels: %v", err)
	}
}
