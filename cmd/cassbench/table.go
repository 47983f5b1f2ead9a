package main

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// reported is a writer's summary as the controller would read it from the pod: encoded
// within the termination message's limit and decoded again, so that a local run's figures
// are exactly those the same summaries give on Kubernetes.
func reported(s *summary.Summary) *summary.Summary {
	back, err := s.RoundTrip()
	if err != nil {
		return &summary.Summary{Index: s.Index, Writers: s.Writers, Error: fmt.Sprintf("writer summary cannot be reported: %v", err)}
	}
	return back
}

// localRun presents a local run as the BenchmarkRun it would have been, so that it is
// rendered by the same code as `cassbench results`.
func localRun(runID string, spec *cbv1.BenchmarkRunSpec, setup *summary.SetupReport, r *cbv1.Results, failed bool) *cbv1.BenchmarkRun {
	phase := cbv1.PhaseSucceeded
	if failed || r == nil {
		phase = cbv1.PhaseFailed
	}
	return &cbv1.BenchmarkRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{Name: runID},
		Spec:       *spec,
		Status: cbv1.BenchmarkRunStatus{
			Phase:      phase,
			Datacenter: &cbv1.DatacenterStatus{Name: "local", Nodes: setup.Nodes, CassandraVersion: setup.CassandraVersion, SettingsVerified: setup.SettingsVerified},
			Results:    r,
		},
	}
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
