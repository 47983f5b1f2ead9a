package main

import (
	"fmt"
	"strings"

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
// rendered by the same code as `cassbench results`. A failed run says why in its Succeeded
// condition, as the controller's does, so that -o json carries it.
func localRun(runID string, spec *cbv1.BenchmarkRunSpec, setup *summary.SetupReport, r *cbv1.Results, failure string) *cbv1.BenchmarkRun {
	phase := cbv1.PhaseSucceeded
	var conds []metav1.Condition
	if failure != "" || r == nil {
		phase = cbv1.PhaseFailed
	}
	if failure != "" {
		conds = []metav1.Condition{{Type: cbv1.ConditionSucceeded, Status: metav1.ConditionFalse, Reason: cbv1.ReasonWriterFailed, Message: failure}}
	}
	return &cbv1.BenchmarkRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{Name: runID},
		Spec:       *spec,
		Status: cbv1.BenchmarkRunStatus{
			Phase:      phase,
			Conditions: conds,
			Datacenter: &cbv1.DatacenterStatus{HeldDatacenter: cbv1.HeldDatacenter{Name: "local"}, Nodes: setup.Nodes, CassandraVersion: setup.CassandraVersion, SettingsVerified: setup.SettingsVerified},
			Results:    r,
		},
	}
}

// writerFailures says which writers failed and why, or "" when none did.
func writerFailures(sums []*summary.Summary) string {
	var problems []string
	for _, s := range sums {
		if s.Error != "" {
			problems = append(problems, fmt.Sprintf("writer %d: %s", s.Index, s.Error))
		}
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("%s; results of the %d writers that reported are kept", strings.Join(problems, "; "), len(sums)-len(problems))
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
