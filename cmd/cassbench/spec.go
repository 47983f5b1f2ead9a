package main

import (
	"context"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/podenv"
)

// loadSpec reads the spec from a file (a BenchmarkRun manifest, or just its spec) or, without
// one, from the environment the controller sets. Either way it is admitted as the API server
// admits a BenchmarkRun, from the CRD itself: refused with the server's message, or defaulted.
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
	spec, err := admission.RunSpec(context.Background(), data)
	if err != nil {
		return nil, fmt.Errorf("reading spec from %s: %w", from, err)
	}
	return spec, nil
}

// admitting is the spec source of `cassbench writer`: any manifest or spec, admitted here.
var admitting = cli.SpecSource{
	FileHelp: "BenchmarkRun manifest or spec (YAML or JSON); default: env " + podenv.Spec,
	Load:     loadSpec,
}

// manifestMeta is the metadata.name and labels of the BenchmarkRun manifest in file, none
// when the file holds only a spec: `cassbench run` names its results after it, so that two
// runs in one report or comparison are told apart by the names their authors gave them, and
// keeps its labels, so that cassbench history groups them by cassbench.io/experiment.
func manifestMeta(file string) (string, map[string]string) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil
	}
	var m struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if yaml.Unmarshal(b, &m) != nil {
		return "", nil
	}
	return m.Metadata.Name, m.Metadata.Labels
}
