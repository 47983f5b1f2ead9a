package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CRDs go through unstructured objects: the scheme holds no apiextensions types, and a CRD
// read back keeps every field the file gives.
var crdKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// ReadCRDs reads the CRDs in dir's *.yaml files, in file name order.
func ReadCRDs(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", dir)
	}
	sort.Strings(files)
	var crds []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &u.Object); err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		if u.GroupVersionKind() != crdKind {
			return nil, fmt.Errorf("%s holds a %s, want a CustomResourceDefinition", f, u.GroupVersionKind())
		}
		crds = append(crds, u)
	}
	return crds, nil
}

// ReplaceCRDs puts the CRDs in dir in place as whole objects (an update, not an apply), as
// installing that version afresh would have: the way back to an older release's schema.
func ReplaceCRDs(ctx context.Context, c client.Client, dir string) error {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(crdKind)
		if err := c.Get(ctx, client.ObjectKeyFromObject(crd), cur); err != nil {
			return fmt.Errorf("reading CRD %s: %w", crd.GetName(), err)
		}
		crd.SetResourceVersion(cur.GetResourceVersion())
		if err := c.Update(ctx, crd); err != nil {
			return fmt.Errorf("replacing CRD %s: %w", crd.GetName(), err)
		}
	}
	return waitEstablished(ctx, c, crds)
}

// ApplyCRDs is `kubectl apply --server-side --force-conflicts -f dir`, the CRD upgrade
// docs/install.md gives (helm upgrade leaves a chart's crds/ alone): a server-side apply by
// kubectl's field manager, taking over the fields an install or an update set.
func ApplyCRDs(ctx context.Context, c client.Client, dir string) error {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(crd), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying CRD %s: %w", crd.GetName(), err)
		}
	}
	return waitEstablished(ctx, c, crds)
}

// waitEstablished waits until each CRD is Established, then a little longer: the apiserver's
// handlers pick an updated schema up asynchronously, with no condition that says so.
func waitEstablished(ctx context.Context, c client.Client, crds []*unstructured.Unstructured) error {
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(crdKind)
			if err := c.Get(ctx, client.ObjectKeyFromObject(crd), cur); err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
			for _, cond := range conds {
				if m, ok := cond.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s to be established: %w", crd.GetName(), err)
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(2 * time.Second):
		return nil
	}
}
