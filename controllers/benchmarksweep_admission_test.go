package controllers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// The CRD's own rules, as a kubectl user meets them.
func TestSweepAdmission(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	valid := func(t *testing.T) *unstructured.Unstructured {
		sw := builders.MakeSweep("", ns).Axis("writers.replicas", 1, 2).Axis("workload.writeConsistency", "ONE", "TWO").Obj()
		sw.GenerateName = "adm-"
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sw)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetAPIVersion(cbv1.GroupVersion.String())
		u.SetKind("BenchmarkSweep")
		return u
	}
	values := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = int64(i + 1)
		}
		return out
	}
	setAxes := func(axes ...map[string]any) func(map[string]any) {
		return func(obj map[string]any) {
			list := make([]any, len(axes))
			for i, a := range axes {
				list[i] = a
			}
			_ = unstructured.SetNestedSlice(obj, list, "spec", "axes")
		}
	}
	ax := func(path string, vals ...any) map[string]any { return map[string]any{"path": path, "values": vals} }

	cases := map[string]struct {
		mutate func(obj map[string]any)
		// want is a phrase of the rejection; empty means the sweep is admitted.
		want string
	}{
		"valid": {mutate: func(map[string]any) {}},
		"no axes": {mutate: setAxes(),
			want: "spec.axes: Invalid value"},
		"no values": {mutate: setAxes(map[string]any{"path": "writers.replicas", "values": []any{}}),
			want: "spec.axes[0].values: Invalid value"},
		"duplicate path": {mutate: setAxes(ax("writers.replicas", int64(1)), ax("writers.replicas", int64(2))),
			want: "each path may appear only once"},
		"zip of unequal axes": {
			mutate: func(obj map[string]any) {
				setAxes(ax("datacenter.size", int64(4), int64(8)), ax("writers.replicas", int64(4)))(obj)
				obj["spec"].(map[string]any)["mode"] = "zip"
			},
			want: "in zip mode every axis must have the same number of values"},
		"200 points": {mutate: setAxes(ax("writers.replicas", values(20)...), ax("writers.concurrency", values(10)...))},
		"201 points": {mutate: setAxes(ax("writers.replicas", values(67)...), ax("writers.concurrency", values(3)...)),
			want: "at most 200 points"},
		"zip of 200": {
			mutate: func(obj map[string]any) {
				setAxes(ax("writers.replicas", values(200)...), ax("writers.concurrency", values(200)...))(obj)
				obj["spec"].(map[string]any)["mode"] = "zip"
			}},
		"nine axes": {mutate: setAxes(ax("a", int64(1)), ax("b", int64(1)), ax("c", int64(1)), ax("d", int64(1)), ax("e", int64(1)),
			ax("f", int64(1)), ax("g", int64(1)), ax("h", int64(1)), ax("i", int64(1))),
			want: "spec.axes: Too many"},
		"integer beyond 32 bits": {mutate: setAxes(ax("workload.seed", int64(1)<<40)),
			want: "an integer must fit in 32 bits"},
		"boolean value": {mutate: setAxes(ax("schema.recreate", true)),
			want: "spec.axes[0].values[0]"},
		"bad path": {mutate: setAxes(ax("writers..replicas", int64(1))),
			want: "spec.axes[0].path"},
		"repeats": {mutate: func(obj map[string]any) { obj["spec"].(map[string]any)["repeats"] = int64(11) },
			want: "spec.repeats"},
		"bestBy": {mutate: func(obj map[string]any) { obj["spec"].(map[string]any)["bestBy"] = "p50" },
			want: "spec.bestBy: Unsupported value"},
		"template is a run spec": {mutate: func(obj map[string]any) {
			_ = unstructured.SetNestedField(obj, int64(0), "spec", "template", "writers", "replicas")
		}, want: "spec.template.writers.replicas"},
		"long name": {mutate: func(obj map[string]any) {
			obj["metadata"].(map[string]any)["name"] = strings.Repeat("n", 64)
		}, want: "metadata.name must be at most 63 characters"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := valid(t)
			tc.mutate(u.Object)
			err := env.Client.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}

	t.Run("immutable", func(t *testing.T) {
		u := valid(t)
		if err := env.Client.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(u.Object, int64(3), "spec", "repeats")
		err := env.Client.Update(ctx, u)
		if err == nil || !strings.Contains(err.Error(), "spec is immutable") {
			t.Fatalf("got %v, want the spec refused as immutable", err)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		u := valid(t)
		if err := env.Client.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		var sw cbv1.BenchmarkSweep
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(u), &sw); err != nil {
			t.Fatal(err)
		}
		if sw.Spec.Mode != cbv1.SweepCartesian || sw.Spec.Repeats != 1 || sw.Spec.BestBy != cbv1.BestByOpsPerSecond {
			t.Errorf("defaults: mode %q repeats %d bestBy %q", sw.Spec.Mode, sw.Spec.Repeats, sw.Spec.BestBy)
		}
		if sw.Spec.Template.Schema.Keyspace != "cassbench" {
			t.Errorf("the template's own defaults are not applied: %+v", sw.Spec.Template.Schema)
		}
	})
}

// The sample sweeps are admitted by the CRD (test/validation checks that); here the controller
// checks every one of their points with a dry run and starts the first.
func TestSweepSamplesHaveValidPoints(t *testing.T) {
	ns := env.Namespace(t)
	startManager(t, managerConfig(t, ns))
	files, err := filepath.Glob(filepath.Join(env.Root, "config", "samples", "sweep-*.yaml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("sweep samples: %v %v", files, err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sw := &cbv1.BenchmarkSweep{}
		if err := utilyaml.Unmarshal(data, sw); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		sw.Namespace = ns
		pl.Create(t, sw)
		got := waitSweepCondition(t, sw, cbv1.ConditionValid, metav1.ConditionTrue, cbv1.ReasonPointsValid)
		if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded); c != nil {
			t.Errorf("%s: %s", file, c.Message)
		}
		if sw.Spec.Restore == cbv1.RestoreAtEnd {
			// It takes dc1 before its first run, and dc1 does not exist here.
			waitSweepCondition(t, sw, cbv1.ConditionDatacenterLocked, metav1.ConditionFalse, cbv1.ReasonDatacenterNotFound)
			continue
		}
		waitSweepRun(t, sw, sw.Name+"-0-0")
	}
	// The first runs wait for datacenter dc1, which this test never creates.
	time.Sleep(100 * time.Millisecond)
}
