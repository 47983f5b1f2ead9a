package jobs

import (
	"testing"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

func TestResolveTargetCarriesTheKeyspacePolicy(t *testing.T) {
	tests := map[string]struct {
		dc        *cassdcapi.CassandraDatacenter
		allowDrop string
		clear     string
	}{
		"defaults": {dc: builders.MakeDatacenter("dc1", "bench").Obj(), clear: "management-api"},
		"listed keyspaces": {
			dc:        builders.MakeDatacenter("dc1", "bench").Annotation(cbv1.AllowDropKeyspacesAnnotation, "bench,bench_*").Obj(),
			allowDrop: "bench,bench_*", clear: "management-api",
		},
		"management API with mutual TLS": {
			dc: func() *cassdcapi.CassandraDatacenter {
				dc := builders.MakeDatacenter("dc1", "bench").Obj()
				dc.Spec.ManagementApiAuth.Manual = &cassdcapi.ManagementApiAuthManualConfig{ClientSecretName: "c", ServerSecretName: "s"}
				return dc
			}(),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			run := &cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "bench"}}
			tg, reason, msg := ResolveTarget(run, tc.dc, "cassbench:test", nil)
			if reason != "" {
				t.Fatalf("refused: %s: %s", reason, msg)
			}
			if tg.AllowDropKeyspaces != tc.allowDrop || tg.ClearSnapshots != tc.clear {
				t.Errorf("allow drop %q, clear snapshots %q; want %q, %q", tg.AllowDropKeyspaces, tg.ClearSnapshots, tc.allowDrop, tc.clear)
			}
		})
	}
}

func TestImageAllowed(t *testing.T) {
	allowed := []string{"registry.example/cassbench:1.2", "registry.example/team/*"}
	tests := map[string]struct {
		image string
		want  bool
	}{
		"the manager's own":             {"cassbench:test", true},
		"listed exactly":                {"registry.example/cassbench:1.2", true},
		"under a listed prefix":         {"registry.example/team/writer:dev", true},
		"another tag of a listed image": {"registry.example/cassbench:1.3", false},
		"beside the prefix":             {"registry.example/teammate/writer:dev", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ImageAllowed(tc.image, "cassbench:test", allowed); got != tc.want {
				t.Errorf("ImageAllowed(%q) = %v, want %v", tc.image, got, tc.want)
			}
		})
	}
}
