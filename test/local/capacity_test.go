package local

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A capacity search through the manager: two writer pods of one Job meet at the barrier, and
// writer 0 searches while both run every step at their share of the rate, agreed through the
// real node. The rate doubles from 1,000 ops/s in 4 s steps until the writers or the node give
// out (the open loop misses its starts, or p99 from the intended start climbs: near 20,000
// ops/s on one machine, near 9,000 on another), a 25% precision ends it after one or two more
// steps, and the miss it rests on runs once more. 20 steps bound it: room for a miss that
// meets on its confirmation and sends the search up again. On a 4 s step a rate near the knee
// can do that: a search from 200 ops/s that had 12 ran out of them (3,200 missed, then met on
// its second try, and the search went on doubling to 12,800). A node that has just started
// does it too while its code compiles, so the writers warm it for 10 s first: after a 2 s
// warmup 1,000 and 500 ops/s missed with 900 and 155 of their starts unsent, met on their
// confirmations, and the search took 15 steps to converge. The controller copies the
// answer into status, with every step's figures and verdict and the verdict at the knee, and
// gives the datacenter back.
func TestCapacitySearchThroughTheOperator(t *testing.T) {
	const name = "capacity"
	env, ctx := scenario(t, name)
	const first, precision = 1000, 25
	none := int32(0)
	tpm := int64(1000)
	run := newRun(env, name).Writers(2).Concurrency(2).Rate(first).
		Warmup(10 * time.Second).Duration(4 * time.Second).RequestTimeout(2 * time.Second).
		Obj()
	run.Spec.Capacity = &cbv1.CapacitySpec{
		Objective:        cbv1.CapacityObjective{P99: metav1.Duration{Duration: 200 * time.Millisecond}, TimeoutsPerMillion: &tpm},
		PrecisionPercent: precision, MaxSteps: 20, Intervals: 4, MaxExtensions: &none,
		DebtWaitLimit: &metav1.Duration{Duration: 30 * time.Second},
	}
	create(ctx, t, env, run)

	run = waitFinished(ctx, t, env, name, 12*time.Minute)
	if run.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("phase %s, want Succeeded; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	res := run.Status.Results
	if res == nil || res.Capacity == nil {
		t.Fatalf("results %+v: want results.capacity", res)
	}
	c := res.Capacity
	for i, st := range c.Steps {
		t.Logf("step %d: %d ops/s asked, %d done, %d ops, %d timeouts, %d missed, p99 %d us (±%s%%), %s %s, verdict %s, debt wait %d ms",
			i+1, st.TargetOpsPerSecond, st.OpsPerSecond, st.Operations, st.Timeouts, st.Missed, st.P99Micros, st.P99SpreadPercent, st.Outcome, st.Reason, st.Bottleneck, st.DebtWaitMillis)
	}
	t.Logf("capacity %d ops/s, missed %d, %s; knee %+v; results: %d operations in %d ms", c.OpsPerSecond, c.MissedOpsPerSecond, c.Stop, c.Knee, res.Operations, res.WindowMillis)

	// Found: a rate met and one missed, within the precision asked for.
	if c.Stop != cbv1.CapacityConverged || c.OpsPerSecond <= 0 || c.MissedOpsPerSecond <= c.OpsPerSecond ||
		c.MissedOpsPerSecond*100 > c.OpsPerSecond*(100+precision) {
		t.Errorf("capacity %d, missed %d, stop %s: want Converged with the miss within %d%% above the capacity", c.OpsPerSecond, c.MissedOpsPerSecond, c.Stop, precision)
	}
	checkCapacitySteps(t, c, first)
	// results covers the whole search: every step's operations, and none besides.
	var stepOps int64
	for _, st := range c.Steps {
		stepOps += st.Operations
	}
	if stepOps != res.Operations {
		t.Errorf("the steps hold %d operations, results %d", stepOps, res.Operations)
	}
	if c.Knee == nil || c.Knee.Verdict == "" || len(c.Knee.Evidence) == 0 {
		t.Errorf("knee %+v: want a verdict with its evidence", c.Knee)
	}
	checkRestored(ctx, t, env)
}

// checkCapacitySteps checks every step's figures against the search's rules: the first at
// writers.rate, one run each, the answer's step met and the miss's step missed with a reason.
func checkCapacitySteps(t *testing.T, c *cbv1.CapacityResults, first int64) {
	t.Helper()
	if len(c.Steps) < 2 || c.Steps[0].TargetOpsPerSecond != first {
		t.Fatalf("%d steps, the first at %d ops/s: want at least two, the first at writers.rate %d", len(c.Steps), c.Steps[0].TargetOpsPerSecond, first)
	}
	// A rate is tried again only to confirm a miss: once, and never after it met.
	tries := map[int64][]cbv1.CapacityOutcome{}
	var met, missed bool
	for i, st := range c.Steps {
		if before := tries[st.TargetOpsPerSecond]; len(before) > 1 || len(before) == 1 && before[0] != cbv1.CapacityMissed {
			t.Errorf("step %d: %d ops/s tried again after %v", i+1, st.TargetOpsPerSecond, before)
		}
		tries[st.TargetOpsPerSecond] = append(tries[st.TargetOpsPerSecond], st.Outcome)
		if st.Operations <= 0 || st.OpsPerSecond <= 0 || st.P99Micros <= 0 || st.P99SpreadPercent == "" || st.Runs != 1 || st.Bottleneck == "" {
			t.Errorf("step %d: %+v; want operations, a p99 with its spread, one run and a verdict", i+1, st)
		}
		switch st.Outcome {
		case cbv1.CapacityMet:
			if st.Reason != "" || st.P99Micros > 200_000 {
				t.Errorf("step %d met with reason %q and p99 %d us over the 200 ms objective", i+1, st.Reason, st.P99Micros)
			}
		case cbv1.CapacityMissed:
			if st.Reason == "" {
				t.Errorf("step %d missed without saying what", i+1)
			}
		default:
			t.Errorf("step %d: outcome %q", i+1, st.Outcome)
		}
		met = met || st.Outcome == cbv1.CapacityMet && st.TargetOpsPerSecond == c.OpsPerSecond
		missed = missed || st.Outcome == cbv1.CapacityMissed && st.TargetOpsPerSecond == c.MissedOpsPerSecond
	}
	if !met || !missed {
		t.Errorf("capacity %d met by a step: %t; missed %d missed by a step: %t", c.OpsPerSecond, met, c.MissedOpsPerSecond, missed)
	}
	// A converged search ran the miss its answer rests on twice, and it missed both times.
	if got := tries[c.MissedOpsPerSecond]; c.Stop == cbv1.CapacityConverged && (len(got) != 2 || got[1] != cbv1.CapacityMissed) {
		t.Errorf("converged with %d ops/s missed, tried %v: want it missed twice", c.MissedOpsPerSecond, got)
	}
}
