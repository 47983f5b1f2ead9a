package controllers

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

var regressedDay0 = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)

// measured is a succeeded run that measured on day at ops/s, with a 3 ms write p99.
func measured(name string, day int, ops int64, phase cbv1.Phase) cbv1.BenchmarkRun {
	run := cbv1.BenchmarkRun{}
	run.Name, run.UID = name, types.UID("uid-"+name)
	run.Status.Phase = phase
	run.Status.Results = &cbv1.Results{WindowStart: metav1.NewTime(regressedDay0.Add(time.Duration(day) * 24 * time.Hour)),
		OpsPerSecond: ops, TimeoutsPerOperation: "0",
		Writes: &cbv1.OperationResults{Operations: 1000, Response: cbv1.Latency{P50: 1000, P99: 3000, P999: 9000}}}
	return run
}

// baselines are n runs on days 0..n-1 at 10,000 ops/s with 1% noise.
func baselines(n int) []cbv1.BenchmarkRun {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []cbv1.BenchmarkRun
	for i := range n {
		out = append(out, measured(fmt.Sprintf("nightly-%d", i), i, int64(10000*(1+0.01*rng.NormFloat64())), cbv1.PhaseSucceeded))
	}
	return out
}

func TestRegressed(t *testing.T) {
	later := measured("nightly-late", 40, 2000, cbv1.PhaseSucceeded)
	failed := measured("nightly-failed", 15, 2000, cbv1.PhaseFailed)
	cases := map[string]struct {
		run        cbv1.BenchmarkRun
		candidates []cbv1.BenchmarkRun
		minRuns    int32
		status     metav1.ConditionStatus
		reason     string
		message    string
	}{
		"a drop": {measured("nightly-20", 20, 9000, cbv1.PhaseSucceeded), baselines(10), 5, metav1.ConditionTrue, cbv1.ReasonRegressed,
			"regressed against 10 baselines: ops/s -10."},
		"steady": {measured("nightly-20", 20, 10000, cbv1.PhaseSucceeded), baselines(10), 5, metav1.ConditionFalse, cbv1.ReasonNoRegression,
			"no figure is a significant regression against 10 baselines (nightly-0 to nightly-9)"},
		// A later run, a failed one and the run itself are not baselines.
		"only earlier succeeded runs": {measured("nightly-20", 20, 10000, cbv1.PhaseSucceeded),
			append(baselines(10), later, failed, measured("nightly-20", 20, 10000, cbv1.PhaseSucceeded)), 5,
			metav1.ConditionFalse, cbv1.ReasonNoRegression, "against 10 baselines (nightly-0 to nightly-9)"},
		"too few": {measured("nightly-20", 20, 2000, cbv1.PhaseSucceeded), baselines(4), 5, metav1.ConditionUnknown, cbv1.ReasonTooLittleHistory,
			"4 baselines succeeded before this run; spec.baselines.minRuns asks for 5"},
		"the newest 100": {measured("nightly-200", 200, 10000, cbv1.PhaseSucceeded), baselines(150), 5, metav1.ConditionFalse,
			cbv1.ReasonNoRegression, "against 100 baselines (nightly-50 to nightly-149)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, reason, msg := regressed(&tc.run, tc.candidates, tc.minRuns)
			if s != tc.status || reason != tc.reason || !strings.Contains(msg, tc.message) {
				t.Errorf("%s %s %q; want %s %s and a message containing %q", s, reason, msg, tc.status, tc.reason, tc.message)
			}
		})
	}
}
