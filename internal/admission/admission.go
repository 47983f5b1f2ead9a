// Package admission admits cassbench objects without an API server. It decodes, prunes,
// defaults and validates them with the API server's own code (k8s.io/apiextensions-apiserver:
// structural schema, pruning, defaulting, OpenAPI validation and CEL rules, wired as the
// server wires them for a custom resource) against the CRDs embedded from config/crd/bases. A
// spec read by `cassbench run`, a file checked by `cassbench validate` and an object the
// cluster admits therefore meet the same rules and get the same defaults, and a refusal reads
// as the API server's, naming the field.
package admission

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/config/crd"
)

// ErrOtherKind is returned for an object that no embedded CRD defines (a CassandraDatacenter
// next to a BenchmarkRun in a GitOps repository): it is not this package's to judge.
var ErrOtherKind = errors.New("not a kind this project defines")

// kind is what the API server keeps per served version of a CRD to admit its objects.
type kind struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
}

// Admitter admits objects of the kinds its CRDs define.
type Admitter struct {
	kinds map[schema.GroupVersionKind]*kind
	// groupKinds tells an unknown version of a known kind from a kind of another project.
	groupKinds map[schema.GroupKind]bool
}

// Default is the Admitter of the CRDs embedded from config/crd/bases, built once: compiling
// the CEL rules takes a moment.
var Default = sync.OnceValues(embedded)

// embedded builds an Admitter of the embedded CRDs.
func embedded() (*Admitter, error) {
	bases, err := fs.Sub(crd.Bases, "bases")
	if err != nil {
		return nil, err
	}
	return New(bases)
}

// New builds an Admitter from every *.yaml CustomResourceDefinition at the root of fsys.
func New(fsys fs.FS) (*Admitter, error) {
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("no CustomResourceDefinition found")
	}
	a := &Admitter{kinds: map[schema.GroupVersionKind]*kind{}, groupKinds: map[schema.GroupKind]bool{}}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		var def apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &def); err != nil {
			return nil, fmt.Errorf("reading CRD %s: %w", f, err)
		}
		if err := a.add(&def); err != nil {
			return nil, fmt.Errorf("CRD %s: %w", def.Name, err)
		}
	}
	return a, nil
}

// add sets up each served version of a CRD the way the API server's custom resource handler
// does (apiextensions-apiserver pkg/apiserver/customresource_handler.go).
func (a *Admitter) add(def *apiextensionsv1.CustomResourceDefinition) error {
	for _, v := range def.Spec.Versions {
		if !v.Served {
			continue
		}
		val, err := apiextensionshelpers.GetSchemaForVersion(def, v.Name)
		if err != nil {
			return err
		}
		if val == nil {
			return fmt.Errorf("version %s has no schema", v.Name)
		}
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
			return fmt.Errorf("converting the schema of %s: %w", v.Name, err)
		}
		structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return fmt.Errorf("schema of %s is not structural: %w", v.Name, err)
		}
		structural = structural.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(structural); err != nil {
			return fmt.Errorf("pruning the defaults of %s: %w", v.Name, err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			return fmt.Errorf("schema validator of %s: %w", v.Name, err)
		}
		var status *apiextensions.CustomResourceSubresourceStatus
		if sub := v.Subresources; sub != nil && sub.Status != nil {
			status = &apiextensions.CustomResourceSubresourceStatus{}
		}
		gvk := schema.GroupVersionKind{Group: def.Spec.Group, Version: v.Name, Kind: def.Spec.Names.Kind}
		namespaced := def.Spec.Scope == apiextensionsv1.NamespaceScoped
		a.kinds[gvk] = &kind{
			gvk: gvk, namespaced: namespaced, structural: structural,
			strategy: customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(), namespaced, gvk,
				validator, nil, structural, status, nil, v.SelectableFields),
		}
		a.groupKinds[gvk.GroupKind()] = true
	}
	return nil
}

// Admit decodes one YAML or JSON object and admits it as the API server admits a create with
// strict field validation: unknown fields are refused, defaults are applied, and the schema
// and CEL rules are checked. It returns the decoded and defaulted object; the error is an
// *apierrors.StatusError worded as the API server's. An object of another kind returns
// ErrOtherKind.
func (a *Admitter) Admit(ctx context.Context, data []byte) (*unstructured.Unstructured, error) {
	obj, err := decode(data)
	if err != nil {
		return nil, err
	}
	return obj, a.AdmitObject(ctx, obj)
}

// AdmitObject admits obj in place: on return it is pruned of unknown fields and defaulted,
// whether or not it passed validation.
func (a *Admitter) AdmitObject(ctx context.Context, obj *unstructured.Unstructured) error {
	k, err := a.kindOf(obj)
	if err != nil {
		return err
	}
	unknown, err := coerce(obj, k)
	if err == nil && len(unknown) > 0 {
		errs := make([]error, len(unknown))
		for i, f := range unknown {
			errs[i] = fmt.Errorf("unknown field %q", f)
		}
		err = runtime.NewStrictDecodingError(errs)
	}
	if err != nil {
		// As the API server's create handler words a decoding error.
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
			k.gvk.Kind, k.gvk.Version, k.gvk.Kind, err))
	}
	structuraldefaulting.Default(obj.Object, k.structural)
	return validate(ctx, obj.DeepCopy(), k)
}

// Default prunes unknown fields and applies the CRD's defaults, without validating.
func (a *Admitter) Default(obj *unstructured.Unstructured) error {
	k, err := a.kindOf(obj)
	if err != nil {
		return err
	}
	if _, err := coerce(obj, k); err != nil {
		return err
	}
	structuraldefaulting.Default(obj.Object, k.structural)
	return nil
}

func (a *Admitter) kindOf(obj *unstructured.Unstructured) (*kind, error) {
	gvk := obj.GroupVersionKind()
	if k := a.kinds[gvk]; k != nil {
		return k, nil
	}
	if a.groupKinds[gvk.GroupKind()] {
		return nil, fmt.Errorf("no version %q of %s: the CRD serves %s", gvk.Version, gvk.GroupKind(), a.versions(gvk.GroupKind()))
	}
	return nil, fmt.Errorf("%s %s: %w", obj.GetAPIVersion(), obj.GetKind(), ErrOtherKind)
}

func (a *Admitter) versions(gk schema.GroupKind) []string {
	var out []string
	for gvk := range a.kinds {
		if gvk.GroupKind() == gk {
			out = append(out, gvk.Version)
		}
	}
	sort.Strings(out)
	return out
}

// coerce prunes what the schema does not declare and returns the paths it pruned, as the API
// server's decoder does for a custom resource (unstructuredSchemaCoercer in
// customresource_handler.go); an error is metadata the server could not decode either.
func coerce(obj *unstructured.Unstructured, k *kind) ([]string, error) {
	u := obj.Object
	apiVersion, kindName := obj.GetAPIVersion(), obj.GetKind()
	meta, hasMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u, k.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, k.structural)
	metaErr, paths := schemaobjectmeta.CoerceWithOptions(nil, u, k.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if metaErr != nil {
		return nil, metaErr
	}
	unknown = append(unknown, paths...)
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kindName)
	if hasMeta {
		if err := schemaobjectmeta.SetObjectMeta(u, meta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// validate runs the API server's create checks (rest.BeforeCreate with the custom resource
// strategy: metadata, OpenAPI schema, list invariants, CEL rules) on obj, which it changes.
func validate(ctx context.Context, obj *unstructured.Unstructured, k *kind) error {
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj.SetName(names.SimpleNameGenerator.GenerateName(obj.GetGenerateName()))
	}
	ns := obj.GetNamespace()
	if k.namespaced && ns == "" {
		ns = "default"
		obj.SetNamespace(ns)
	}
	rest.FillObjectMetaSystemFields(obj)
	return rest.BeforeCreate(k.strategy, request.WithNamespace(ctx, ns), obj)
}

// decode reads one YAML or JSON object; duplicate keys are refused, as strict decoding does.
func decode(data []byte) (*unstructured.Unstructured, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(js, &m); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	if m == nil {
		return nil, errors.New("decoding: empty document")
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// Documents splits a YAML stream at its --- separators, leaving out empty documents.
func Documents(r io.Reader) ([][]byte, error) {
	rd := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var out [][]byte
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return out, fmt.Errorf("document %d: %w", len(out)+1, err)
		}
		if t := bytes.TrimSpace(js); len(t) == 0 || string(t) == "null" {
			continue
		}
		out = append(out, doc)
	}
}
