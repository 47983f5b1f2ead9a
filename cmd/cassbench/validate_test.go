package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/cli"
)

func TestValidateFiles(t *testing.T) {
	samples, err := filepath.Glob("../../config/samples/*.yaml")
	if err != nil || len(samples) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	badRun := "apiVersion: cassbench.io/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: bad}\nspec:\n  datacenterRef: {name: dc1}\n  schema: {keyspace: dse_x}\n  writers: {replicas: 1, duration: 1m}\n"
	if err := os.WriteFile(bad, []byte(badRun), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		files  []string
		asJSON bool
		stdin  string
		code   int
		stdout []string
		stderr []string
	}{
		"every sample": {
			files:  samples,
			stdout: []string{"writers-12.yaml: BenchmarkRun writers-12 is valid", "BenchmarkSweep sweep-writer-count is valid", "CassandraDatacenter dc1 skipped"},
		},
		"a refused run among valid ones": {
			files:  []string{samples[0], bad},
			code:   1,
			stderr: []string{bad + `: BenchmarkRun.cassbench.io "bad" is invalid: spec.schema.keyspace: Invalid value: "dse_x": schema.keyspace must not be a system keyspace`},
		},
		"stdin, two documents": {
			files:  []string{"-"},
			stdin:  badRun + "---\n" + strings.Replace(badRun, "dse_x", "ok", 1),
			code:   1,
			stdout: []string{"<stdin> (document 2): BenchmarkRun bad is valid"},
			stderr: []string{"<stdin> (document 1): BenchmarkRun.cassbench.io"},
		},
		"a bare spec": {
			files:  []string{"-"},
			stdin:  "datacenterRef: {name: dc1}\nwriters: {replicas: 1, duration: 1s}\n",
			code:   1,
			stderr: []string{"<stdin>: no kind"},
		},
		"json: the admitted objects alone": {
			files:  []string{"-"},
			asJSON: true,
			stdin:  strings.Replace(badRun, "dse_x", "ok", 1) + "---\napiVersion: cassandra.datastax.com/v1beta1\nkind: CassandraDatacenter\nmetadata: {name: dc1}\n",
			stdout: []string{`{"apiVersion":"cassbench.io/v1alpha1","kind":"BenchmarkRun"`, `"connectionsPerHost":`},
			stderr: []string{"<stdin> (document 2): CassandraDatacenter dc1 skipped"},
		},
		"a missing file": {
			files:  []string{"no-such.yaml"},
			code:   1,
			stderr: []string{"no-such.yaml: open no-such.yaml"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := validateFiles(context.Background(), tc.files, tc.asJSON, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, &stdout, &stderr)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout does not say %q:\n%s", want, &stdout)
				}
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr does not say %q:\n%s", want, &stderr)
				}
			}
		})
	}
}

// What `cassbench validate -o json` prints is what cassbench-writer reads: the spec
// `cassbench writer -f` would admit from the same manifest.
func TestValidateJSONIsWhatTheWriterBinaryReads(t *testing.T) {
	manifest := "../../config/samples/writers-12.yaml"
	var stdout, stderr bytes.Buffer
	if code := validateFiles(context.Background(), []string{manifest}, true, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("validate -o json: exit %d: %s", code, &stderr)
	}
	admitted := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(admitted, stdout.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := cli.AdmittedSpec(admitted)
	if err != nil {
		t.Fatal(err)
	}
	want, err := loadSpec(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the writer binary reads another spec than cassbench writer (-admitted +read):\n%s", diff)
	}
}
