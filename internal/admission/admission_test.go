package admission

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestAdmit(t *testing.T) {
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	const sweep = `apiVersion: cassbench.io/v1alpha1
kind: BenchmarkSweep
metadata: {name: s}
spec:
  template:
    datacenterRef: {name: dc1}
    writers: {replicas: 1, duration: 1m}
  axes:
  - {path: writers.replicas, values: [1, 2]}
`
	tests := map[string]struct {
		doc, err string
		other    bool
		check    func(t *testing.T, got map[string]any)
	}{
		"sweep defaulted, template too": {
			doc: sweep,
			check: func(t *testing.T, got map[string]any) {
				spec := got["spec"].(map[string]any)
				tmpl := spec["template"].(map[string]any)
				if spec["mode"] != "cartesian" || tmpl["schema"].(map[string]any)["keyspace"] != "cassbench" {
					t.Errorf("not defaulted: %v", spec)
				}
			},
		},
		"zip axes of different lengths": {
			doc: strings.Replace(sweep, "  axes:", "  mode: zip\n  axes:\n  - {path: writers.concurrency, values: [1]}", 1),
			err: "spec.axes: in zip mode every axis must have the same number of values",
		},
		"a path twice": {
			doc: sweep + "  - {path: writers.replicas, values: [3]}\n",
			err: "spec.axes: each path may appear only once",
		},
		"another project's kind": {
			doc:   "apiVersion: cassandra.datastax.com/v1beta1\nkind: CassandraDatacenter\nmetadata: {name: dc1}\n",
			other: true,
		},
		"a version the CRD does not serve": {
			doc: strings.Replace(sweep, "v1alpha1", "v1", 1),
			err: `no version "v1" of BenchmarkSweep.cassbench.io`,
		},
		"name too long for a run": {
			doc: "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: " + strings.Repeat("r", 57) + "}\nspec: {datacenterRef: {name: dc1}, writers: {replicas: 1, duration: 1m}}\n",
			err: "metadata.name must be at most 56 characters",
		},
		"duplicate key": {
			doc: "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkRun\nkind: BenchmarkRun\n",
			err: "already set in map",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := a.Admit(context.Background(), []byte(tc.doc))
			switch {
			case tc.other:
				if !errors.Is(err, ErrOtherKind) {
					t.Fatalf("err = %v, want ErrOtherKind", err)
				}
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to say %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, got.Object)
			}
		})
	}
}

// Refusals carry the API server's status, so callers can tell them apart as they would a
// server's answer.
func TestAdmitStatus(t *testing.T) {
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	run := "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: r}\nspec: {datacenterRef: {name: dc1}, writers: {replicas: 0, duration: 1m}}\n"
	if _, err := a.Admit(context.Background(), []byte(run)); !apierrors.IsInvalid(err) {
		t.Errorf("invalid spec: err = %v, want Invalid", err)
	}
	typo := strings.Replace(run, "replicas: 0", "replica: 1", 1)
	if _, err := a.Admit(context.Background(), []byte(typo)); !apierrors.IsBadRequest(err) {
		t.Errorf("unknown field: err = %v, want BadRequest", err)
	}
}
