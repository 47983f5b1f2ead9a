//go:build e2e

package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/summary"
)

// writerSummaries reads back every writer's raw summary from the ConfigMaps the run keeps
// them in (status holds a compact row per writer).
func (k *cluster) writerSummaries(ctx context.Context, t *testing.T, run *cbv1.BenchmarkRun) map[int32]*summary.Summary {
	t.Helper()
	var cms corev1.ConfigMapList
	if err := k.c.List(ctx, &cms, client.InNamespace(run.Namespace), client.MatchingLabels(reportstore.Selector(run.Name))); err != nil {
		t.Fatalf("listing the run's report ConfigMaps: %v", err)
	}
	reports, err := reportstore.Read(run, cms.Items)
	if err != nil {
		t.Fatalf("reading the run's reports: %v", err)
	}
	out := map[int32]*summary.Summary{}
	for _, r := range reports {
		s, err := summary.Decode([]byte(r.Summary))
		if err != nil {
			t.Fatalf("writer %d's summary: %v", r.Index, err)
		}
		out[r.Index] = s
	}
	return out
}

func limits(cpu, memory string) corev1.ResourceRequirements {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return corev1.ResourceRequirements{Limits: l}
}
