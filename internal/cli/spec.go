package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
)

// AdmittedSpecHelp describes the -f flag of a command that reads an admitted spec.
const AdmittedSpecHelp = "admitted BenchmarkRun or spec, JSON, as `cassbench validate -o json` prints it; default: env " + podenv.Spec

// AdmittedSpec reads a spec that an API server, `cassbench run` or `cassbench validate -o json`
// has admitted already (defaulted and validated): from file, or without one from the
// environment the controller sets on writer pods. It neither defaults nor validates, which is
// what keeps the apiserver's schemas and CEL out of the writer pods' binary; the writer refuses
// a spec without the CRD's defaults, naming the fields (internal/writer), so a hand-written
// spec cannot run with made-up values.
func AdmittedSpec(file string) (*cbv1.BenchmarkRunSpec, error) {
	data, from := []byte(os.Getenv(podenv.Spec)), podenv.Spec
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading spec: %w", err)
		}
		data, from = b, file
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("no spec: pass -f FILE or set %s", podenv.Spec)
	}
	spec, err := decodeAdmitted(data)
	if err != nil {
		return nil, fmt.Errorf("reading spec from %s: %w", from, err)
	}
	return spec, nil
}

// decodeAdmitted decodes a BenchmarkRun's spec, or the spec alone. Unknown fields are refused:
// the API server prunes them, so one here means the spec never went through admission or
// came from a newer CRD than this binary's.
func decodeAdmitted(data []byte) (*cbv1.BenchmarkRunSpec, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object (this binary reads admitted specs only; `cassbench writer -f` reads YAML and admits it): %w", err)
	}
	if raw, ok := top["spec"]; ok {
		var kind string
		_ = json.Unmarshal(top["kind"], &kind) // absent or not a string: refused just below
		if kind != "BenchmarkRun" {
			return nil, fmt.Errorf("a manifest of kind %q: want a BenchmarkRun or its spec", kind)
		}
		data = raw
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var spec cbv1.BenchmarkRunSpec
	if err := dec.Decode(&spec); err != nil {
		return nil, err
	}
	return &spec, nil
}
