package controllers

import (
	"testing"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The nodes' CPU limit the verdict judges their saturation against is the Cassandra
// containers' limit; a request alone bounds nothing.
func TestNodeCPULimit(t *testing.T) {
	resources := func(r corev1.ResourceRequirements) *cassdcapi.CassandraDatacenter {
		return aDC().Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Resources = r }).Obj()
	}
	cpu := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
	}
	tests := map[string]struct {
		dc   *cassdcapi.CassandraDatacenter
		want int64
	}{
		"limit of 4 cores":     {resources(corev1.ResourceRequirements{Limits: cpu("4")}), 4000},
		"fractional limit":     {resources(corev1.ResourceRequirements{Requests: cpu("1"), Limits: cpu("1500m")}), 1500},
		"request only":         {resources(corev1.ResourceRequirements{Requests: cpu("2")}), 0},
		"no resources":         {aDC().Obj(), 0},
		"datacenter not found": {nil, 0},
	}
	for name, tc := range tests {
		if got := nodeCPULimit(tc.dc); got != tc.want {
			t.Errorf("%s: nodeCPULimit = %d, want %d", name, got, tc.want)
		}
	}
}
