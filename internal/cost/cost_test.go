package cost

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func requests(cpu, mem string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}}
	if cpu != "" {
		r.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		r.Requests[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return r
}

func TestOf(t *testing.T) {
	three := Priced{Nodes: 3, Node: requests("4", "16Gi"), Writers: 2, Writer: requests("500m", "1Gi"), OpsPerSecond: 10000}
	cases := map[string]struct {
		p    *cbv1.Pricing
		what Priced
		want *cbv1.CostResults
	}{
		"no prices, no cost": {nil, three, nil},
		// 3 × 0.5 = 1.5 an hour for 36M operations an hour: 0.04167 a million.
		"per node-hour prices the nodes only": {
			&cbv1.Pricing{PerNodeHour: "0.5", Currency: "EUR"}, three,
			&cbv1.CostResults{Currency: "EUR", DatacenterPerHour: "1.5", PerMillionOperations: "0.04167",
				Note: "not priced: the writers: pricing.perNodeHour prices nodes; give perCoreHour and perGiBHour to price the writers"},
		},
		// A node: 4 × 0.04 + 16 × 0.005 = 0.24, three 0.72; a writer 0.5 × 0.04 + 0.005 = 0.025, two 0.05.
		"per core and GiB prices both apart": {
			&cbv1.Pricing{PerCoreHour: "0.04", PerGiBHour: "0.005"}, three,
			&cbv1.CostResults{Currency: "USD", DatacenterPerHour: "0.72", PerMillionOperations: "0.02",
				WritersPerHour: "0.05", WritersPerMillionOperations: "0.001389"},
		},
		"limits where nothing is requested": {
			&cbv1.Pricing{PerCoreHour: "1"},
			Priced{Nodes: 1, Node: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}},
				Writers: 1, OpsPerSecond: 1000},
			&cbv1.CostResults{Currency: "USD", DatacenterPerHour: "2", PerMillionOperations: "0.5556",
				Note: "not priced: the writers: no CPU or memory requested to price"},
		},
		"nothing measured has no cost per operation": {
			&cbv1.Pricing{PerNodeHour: "1"}, Priced{Nodes: 2, Writers: 1},
			&cbv1.CostResults{Currency: "USD", DatacenterPerHour: "2",
				Note: "not priced: the writers: pricing.perNodeHour prices nodes; give perCoreHour and perGiBHour to price the writers"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Of(tc.p, tc.what)); diff != "" {
				t.Errorf("cost (-want +got):\n%s", diff)
			}
		})
	}
}
