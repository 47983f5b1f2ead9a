// Command crddoc writes a Markdown reference of a CRD's spec from its OpenAPI schema, so the
// field reference is generated from the same markers as the CRD and cannot drift from it.
//
//	go run ./hack/crddoc config/crd/bases/cassbench.io_benchmarkruns.yaml > docs/benchmarkrun.md
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crddoc CRD.yaml")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "crddoc:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	v := crd.Spec.Versions[0]
	spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
	fmt.Printf("# %s reference (%s/%s)\n\n", crd.Spec.Names.Kind, crd.Spec.Group, v.Name)
	fmt.Printf("Generated from the CRD by `make manifests` (hack/crddoc); do not edit.\n\n")
	fmt.Printf("%s\n\n", oneLine(v.Schema.OpenAPIV3Schema.Description))
	for _, rule := range spec.XValidations {
		fmt.Printf("- Rule on `spec`: %s\n", rule.Message)
	}
	fmt.Printf("\n| Field | Type | Default | Limits | Description |\n|---|---|---|---|---|\n")
	walk("spec", spec, spec.Required)
	return nil
}

// walk prints a row per field, depth first, skipping the insides of Kubernetes core types
// (resources, tolerations, affinity) whose own documentation is better than a table here.
func walk(path string, s apiextensionsv1.JSONSchemaProps, required []string) {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		child := s.Properties[name]
		p := path + "." + name
		req := ""
		for _, r := range required {
			if r == name {
				req = " (required)"
			}
		}
		fmt.Printf("| `%s`%s | %s | %s | %s | %s |\n", p, req, typeOf(child), defaultOf(child), limits(child), oneLine(child.Description))
		if core[name] {
			continue
		}
		if len(child.Properties) > 0 {
			walk(p, child, child.Required)
		} else if child.Items != nil && child.Items.Schema != nil && len(child.Items.Schema.Properties) > 0 {
			walk(p+"[]", *child.Items.Schema, child.Items.Schema.Required)
		}
	}
}

var core = map[string]bool{"resources": true, "tolerations": true, "affinity": true}

func typeOf(s apiextensionsv1.JSONSchemaProps) string {
	t := s.Type
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	if t == "array" && s.Items != nil && s.Items.Schema != nil {
		t = "array of " + s.Items.Schema.Type
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		t += ", free-form"
	}
	return t
}

func defaultOf(s apiextensionsv1.JSONSchemaProps) string {
	if s.Default == nil {
		return ""
	}
	var v any
	if json.Unmarshal(s.Default.Raw, &v) != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return "`" + string(b) + "`"
}

func limits(s apiextensionsv1.JSONSchemaProps) string {
	var out []string
	if s.Minimum != nil {
		out = append(out, fmt.Sprintf("≥ %v", *s.Minimum))
	}
	if s.Maximum != nil {
		out = append(out, fmt.Sprintf("≤ %v", *s.Maximum))
	}
	if s.MaxLength != nil {
		out = append(out, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.MaxItems != nil {
		out = append(out, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if len(s.Enum) > 0 {
		var vals []string
		for _, e := range s.Enum {
			vals = append(vals, strings.Trim(string(e.Raw), `"`))
		}
		out = append(out, "one of "+strings.Join(vals, ", "))
	}
	if s.Pattern != "" {
		out = append(out, "pattern `"+s.Pattern+"`")
	}
	for _, r := range s.XValidations {
		out = append(out, r.Message)
	}
	return strings.ReplaceAll(strings.Join(out, "; "), "|", `\|`)
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
