package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/writer"
)

// loadSpec reads the spec from a file (a BenchmarkRun manifest, or just its spec) or, without
// one, from the environment the controller sets. Either way the CRD's defaults are applied,
// because outside Kubernetes no API server applies them.
func loadSpec(file string) (*cbv1.BenchmarkRunSpec, error) {
	var data []byte
	var from string
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading spec: %w", err)
		}
		data, from = b, file
	case os.Getenv(podenv.Spec) != "":
		data, from = []byte(os.Getenv(podenv.Spec)), podenv.Spec
	default:
		return nil, fmt.Errorf("no spec: pass -f FILE or set %s", podenv.Spec)
	}
	spec, err := parseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("reading spec from %s: %w", from, err)
	}
	return spec, nil
}

func parseSpec(data []byte) (*cbv1.BenchmarkRunSpec, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil {
		return nil, err
	}
	if s, ok := top["spec"]; ok {
		js = s
	}
	var spec cbv1.BenchmarkRunSpec
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields() // a typo in a local spec is an error, not a silently ignored field
	if err := dec.Decode(&spec); err != nil {
		return nil, err
	}
	var present map[string]map[string]json.RawMessage
	_ = json.Unmarshal(js, &present) // only to tell an absent field from a zero one
	writer.ApplyDefaults(&spec, func(section, field string) bool {
		_, ok := present[section][field]
		return ok
	})
	return &spec, validate(&spec)
}

// validate repeats the CRD's rules that matter to a local run, with the CRD's messages.
func validate(s *cbv1.BenchmarkRunSpec) error {
	w := s.Writers
	switch {
	case w.Replicas < 1:
		return errors.New("writers.replicas must be at least 1")
	case (w.Duration == nil) == (w.Operations == nil):
		return errors.New("writers takes exactly one of duration or operations")
	case s.Workload.WriteRatio+s.Workload.ReadRatio <= 0:
		return errors.New("workload.writeRatio and workload.readRatio must not both be 0")
	case s.Workload.ReadLimit < 0:
		return errors.New("workload.readLimit must be at least 1")
	case s.Workload.ReadLimit > 0 && s.Workload.ReadPath == cbv1.ReadRow:
		return errors.New("workload.readLimit applies to partition and index reads, and a row read returns one row: remove readLimit or set readPath to partition or index")
	case (s.Schema.Table.Profile != "") == (s.Schema.Table.CQL != ""):
		return errors.New("schema.table takes exactly one of profile or cql")
	}
	return nil
}
