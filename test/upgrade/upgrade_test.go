// Package upgrade checks that objects stored under an older release's CRDs survive the CRD
// upgrade users make (a server-side apply of the new CRDs) and read back, through the current
// types, as what that release recorded: above all the size and config a holder puts back.
package upgrade_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/lending"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// released holds the CRDs of release 628d32d, the last before status.datacenter became one
// type (HeldDatacenter) and lost hadConfig: `git show 628d32d:config/crd/bases/<file>`.
const released = "testdata/628d32d"

const origConfig = `{"cassandra-yaml":{"concurrent_writes":48},"jvm-server-options":{"max_heap_size":"1G"}}`

// holder is an object stored under the released CRDs with the status.datacenter that release
// wrote, and the originals the current version must read from it.
type holder struct {
	obj        client.Object
	datacenter map[string]any
	want       *lending.Originals
}

func TestObjectsOfTheReleasedCRDsSurviveTheCRDUpgrade(t *testing.T) {
	env := kube.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := env.Namespace(t)

	replaceCRDs(ctx, t, env.Client, released)
	var config map[string]any
	if err := json.Unmarshal([]byte(origConfig), &config); err != nil {
		t.Fatal(err)
	}
	holders := map[string]holder{
		// A run that took a datacenter with a config: the release wrote hadConfig beside it.
		"run-with-config": {
			obj: builders.MakeBenchmarkRun("run-with-config", ns).Datacenter("dc1").Obj(),
			datacenter: map[string]any{"name": "dc1", "namespace": ns, "originalSize": int64(3), "hadConfig": true,
				"originalConfig": config, "size": int64(5), "patchedGeneration": int64(7)},
			want: &lending.Originals{Size: 3, Config: json.RawMessage(origConfig)},
		},
		// A datacenter without a config: no hadConfig, no originalConfig; giving back removes
		// whatever config the run set.
		"run-without-config": {
			obj:        builders.MakeBenchmarkRun("run-without-config", ns).Datacenter("dc1").Obj(),
			datacenter: map[string]any{"name": "dc1", "namespace": ns, "originalSize": int64(1), "size": int64(2), "patchedGeneration": int64(4)},
			want:       &lending.Originals{Size: 1},
		},
		// A sweep with restore atEnd, in the release's own SweepDatacenterStatus.
		"sweep": {
			obj: builders.MakeSweep("sweep", ns).Axis("writers.replicas", 1, 2).Restore(cbv1.RestoreAtEnd).Obj(),
			datacenter: map[string]any{"name": "dc1", "namespace": ns, "originalSize": int64(3), "hadConfig": true,
				"originalConfig": config},
			want: &lending.Originals{Size: 3, Config: json.RawMessage(origConfig)},
		},
	}
	before := map[string]*unstructured.Unstructured{}
	for name, h := range holders {
		before[name] = createWithStatus(ctx, t, env.Client, h)
		if got, _, _ := unstructured.NestedMap(before[name].Object, "status", "datacenter"); !sameJSON(t, marshal(t, got), marshal(t, h.datacenter)) {
			t.Fatalf("%s: the released CRD stored status.datacenter %v, want it as written %v", name, got, h.datacenter)
		}
	}

	applyCRDs(ctx, t, env.Client, filepath.Join(env.Root, "config", "crd", "bases"))

	for name, h := range holders {
		t.Run(name, func(t *testing.T) {
			after := get(ctx, t, env.Client, h.obj)
			if diff := cmp.Diff(before[name].Object["spec"], after.Object["spec"]); diff != "" || after.Object["spec"] == nil {
				t.Errorf("spec changed by the CRD upgrade (-before +after):\n%s", diff)
			}
			checkOriginals(ctx, t, env.Client, h, "read after the CRD upgrade")
			// The current manager writes the status back: what it writes keeps the originals,
			// and the field the current schema lacks is gone.
			typed := h.obj.DeepCopyObject().(client.Object)
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(h.obj), typed); err != nil {
				t.Fatal(err)
			}
			if err := env.Client.Status().Update(ctx, typed); err != nil {
				t.Fatalf("writing the status back through the current types: %v", err)
			}
			checkOriginals(ctx, t, env.Client, h, "written back by the current types")
			if _, found, _ := unstructured.NestedFieldNoCopy(get(ctx, t, env.Client, h.obj).Object, "status", "datacenter", "hadConfig"); found {
				t.Error("status.datacenter.hadConfig is still stored once the current types wrote the status")
			}
		})
	}
	served := &cbv1.BenchmarkRunList{}
	if err := env.Client.List(ctx, served, client.InNamespace(ns)); err != nil || len(served.Items) != 2 {
		t.Errorf("listing runs after the CRD upgrade: %d runs, %v; want 2", len(served.Items), err)
	}
}

// createWithStatus creates a holder and writes its status.datacenter as the released manager
// did, through the status subresource; it returns the object as stored.
func createWithStatus(ctx context.Context, t *testing.T, c client.Client, h holder) *unstructured.Unstructured {
	t.Helper()
	if err := c.Create(ctx, h.obj); err != nil {
		t.Fatalf("creating %s under the released CRD: %v", h.obj.GetName(), err)
	}
	u := get(ctx, t, c, h.obj)
	if err := unstructured.SetNestedField(u.Object, runtime.DeepCopyJSONValue(h.datacenter), "status", "datacenter"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, u); err != nil {
		t.Fatalf("writing %s's status as the released manager did: %v", h.obj.GetName(), err)
	}
	return get(ctx, t, c, h.obj)
}

// checkOriginals reads the holder through the current types and checks the originals in it.
func checkOriginals(ctx context.Context, t *testing.T, c client.Client, h holder, when string) {
	t.Helper()
	var held *cbv1.HeldDatacenter
	switch o := h.obj.DeepCopyObject().(type) {
	case *cbv1.BenchmarkRun:
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		if o.Status.Datacenter != nil {
			held = &o.Status.Datacenter.HeldDatacenter
		}
	case *cbv1.BenchmarkSweep:
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		held = o.Status.Datacenter
	}
	got := lending.OriginalsOf(held)
	if got == nil {
		t.Fatalf("%s: no originals in status.datacenter %+v", when, held)
	}
	if got.Size != h.want.Size || !sameJSON(t, got.Config, h.want.Config) {
		t.Errorf("%s: originals size %d, config %s; want size %d, config %s", when, got.Size, got.Config, h.want.Size, h.want.Config)
	}
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(x, y)
}

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// get reads an object as the apiserver serves it, without decoding into the current types.
func get(ctx context.Context, t *testing.T, c client.Client, o client.Object) *unstructured.Unstructured {
	t.Helper()
	gvk, err := c.GroupVersionKindFor(o)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := c.Get(ctx, client.ObjectKeyFromObject(o), u); err != nil {
		t.Fatalf("reading %s: %v", o.GetName(), err)
	}
	return u
}

// replaceCRDs puts the CRDs in dir in place as whole objects, as installing that release would.
func replaceCRDs(ctx context.Context, t *testing.T, c client.Client, dir string) {
	t.Helper()
	if err := kube.ReplaceCRDs(ctx, c, dir); err != nil {
		t.Fatalf("installing the released CRDs: %v", err)
	}
}

// applyCRDs upgrades the CRDs as docs/install.md says: kubectl apply --server-side.
func applyCRDs(ctx context.Context, t *testing.T, c client.Client, dir string) {
	t.Helper()
	if err := kube.ApplyCRDs(ctx, c, dir); err != nil {
		t.Fatalf("upgrading the CRDs: %v", err)
	}
}
