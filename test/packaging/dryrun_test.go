package packaging_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The chart tests' dry runs are only worth something if a dry run refuses broken objects.
// Each case breaks one rendered object the way a template edit could.
func TestDryRunRefusesBrokenManifests(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := restrictedNamespace(t)
	objs := renderChart(t, "cassbench", ns, "metrics: {serviceMonitor: {enabled: true}}")
	set := func(obj *unstructured.Unstructured, value any, fields ...string) *unstructured.Unstructured {
		obj = obj.DeepCopy()
		if err := unstructured.SetNestedField(obj.Object, value, fields...); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	withContainer := func(mutate func(map[string]any)) *unstructured.Unstructured {
		dep := find(t, objs, "Deployment", "cassbench-manager").DeepCopy()
		containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
		mutate(containers[0].(map[string]any))
		if err := unstructured.SetNestedSlice(dep.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
		return dep
	}
	for name, c := range map[string]struct {
		obj  *unstructured.Unstructured
		want string // in the error or a warning
	}{
		"privileged manager": {
			obj:  withContainer(func(c map[string]any) { c["securityContext"].(map[string]any)["privileged"] = true }),
			want: "privileged",
		},
		"added capability": {
			obj: withContainer(func(c map[string]any) {
				c["securityContext"].(map[string]any)["capabilities"] = map[string]any{"add": []any{"NET_ADMIN"}}
			}),
			want: "NET_ADMIN",
		},
		"manager as root": {
			obj:  set(find(t, objs, "Deployment", "cassbench-manager"), int64(0), "spec", "template", "spec", "securityContext", "runAsUser"),
			want: "runAsUser=0",
		},
		"unknown field in the Deployment": {
			obj:  withContainer(func(c map[string]any) { c["imagePullPolicyy"] = "Always" }),
			want: "imagePullPolicyy",
		},
		"binding to a role kind that does not exist": {
			obj:  set(find(t, objs, "ClusterRoleBinding", "cassbench-manager"), "Rolle", "roleRef", "kind"),
			want: "roleRef.kind",
		},
		"rule without verbs": {
			obj:  set(find(t, objs, "ClusterRole", "cassbench-manager"), []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}}}, "rules"),
			want: "verbs",
		},
		"ServiceMonitor endpoint of the wrong type": {
			obj:  set(find(t, objs, "ServiceMonitor", "cassbench-manager"), []any{map[string]any{"port": int64(8443)}}, "spec", "endpoints"),
			want: "spec.endpoints[0].port",
		},
	} {
		t.Run(name, func(t *testing.T) {
			warnings, err := newDryRunner(t).apply(ctx, c.obj)
			got := strings.Join(warnings, "\n")
			if err != nil {
				got += "\n" + err.Error()
			}
			if err == nil && len(warnings) == 0 {
				t.Fatalf("applied without error or warning")
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("refused, but without mentioning %q:\n%s", c.want, got)
			}
		})
	}
}

// Applying a rendered chart for real in a test would leave cluster-scoped objects behind in the
// shared control plane; applyForReal deletes them when the test ends.
func applyForReal(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, obj := range objs {
		if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), fieldOwner, client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
		if isClusterScoped(obj.GetKind()) {
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := client.IgnoreNotFound(env.Client.Delete(ctx, obj)); err != nil && !meta.IsNoMatchError(err) {
					t.Errorf("deleting %s %s: %v", obj.GetKind(), obj.GetName(), err)
				}
			})
		}
	}
}
