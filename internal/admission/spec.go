package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// LocalName names a run read from a bare spec, which has no metadata.
const LocalName = "local"

// RunSpec reads a BenchmarkRun manifest, or its spec alone, and returns the spec as the API
// server would store it: refused with the server's message if the CRD refuses it, defaulted
// otherwise.
func RunSpec(ctx context.Context, data []byte) (*cbv1.BenchmarkRunSpec, error) {
	obj, err := decode(data)
	if err != nil {
		return nil, err
	}
	obj, err = asRun(obj)
	if err != nil {
		return nil, err
	}
	// An Admitter of its own, not Default: the commands that read one spec (writer, setup,
	// run) would otherwise keep its schemas and CEL programs, some 20 MiB, live for the
	// whole load, where the collector marks them on every cycle.
	a, err := embedded()
	if err != nil {
		return nil, err
	}
	if err := a.AdmitObject(ctx, obj); err != nil {
		return nil, err
	}
	return typedSpec(obj)
}

// DefaultRunSpec returns a copy of spec with the CRD's defaults applied, as the API server
// applies them to a BenchmarkRun it admits; it does not validate. It serves specs built in Go
// (tests, tools), which no API server has seen.
func DefaultRunSpec(spec *cbv1.BenchmarkRunSpec) (*cbv1.BenchmarkRunSpec, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	obj, err := decode(data)
	if err != nil {
		return nil, err
	}
	if obj, err = asRun(obj); err != nil {
		return nil, err
	}
	a, err := Default()
	if err != nil {
		return nil, err
	}
	if err := a.Default(obj); err != nil {
		return nil, err
	}
	return typedSpec(obj)
}

// asRun wraps a bare spec into a BenchmarkRun; a manifest (it has a kind, an apiVersion or a
// spec, none of which a spec has) must be a BenchmarkRun.
func asRun(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	_, hasKind := obj.Object["kind"]
	_, hasVersion := obj.Object["apiVersion"]
	_, hasSpec := obj.Object["spec"]
	if !hasKind && !hasVersion && !hasSpec {
		obj = &unstructured.Unstructured{Object: map[string]any{"spec": obj.Object}}
	}
	gvk := cbv1.GroupVersion.WithKind("BenchmarkRun")
	if !hasKind {
		obj.SetKind(gvk.Kind)
	}
	if !hasVersion {
		obj.SetAPIVersion(gvk.GroupVersion().String())
	}
	if obj.GetKind() != gvk.Kind {
		return nil, fmt.Errorf("the file holds a %s; a BenchmarkRun (or its spec) is needed", obj.GetKind())
	}
	if obj.GetName() == "" && obj.GetGenerateName() == "" {
		obj.SetName(LocalName)
	}
	return obj, nil
}

// typedSpec reads the admitted spec into the Go type. The CRD is generated from that type, so
// a field the type does not know is a bug in the generated files, not the user's mistake.
func typedSpec(obj *unstructured.Unstructured) (*cbv1.BenchmarkRunSpec, error) {
	data, err := json.Marshal(obj.Object["spec"])
	if err != nil {
		return nil, err
	}
	var spec cbv1.BenchmarkRunSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("the CRD admitted a spec its Go type cannot read (run make manifests): %w", err)
	}
	return &spec, nil
}
