package results

import (
	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// capacityOf is the capacity search's result, which writer 0 reports; nil without one.
func capacityOf(reported []*summary.Summary) *cbv1.CapacityResults {
	for _, s := range reported {
		if c := s.Capacity; c != nil {
			return CapacityResults(c)
		}
	}
	return nil
}

// CapacityResults turns a writer's report of a capacity search into its status.
func CapacityResults(c *summary.Capacity) *cbv1.CapacityResults {
	out := &cbv1.CapacityResults{OpsPerSecond: c.Ops, MissedOpsPerSecond: c.Missed, Stop: cbv1.CapacityStop(c.Stop)}
	if c.Knee != "" {
		out.Knee = &cbv1.Bottleneck{Verdict: cbv1.BottleneckVerdict(c.Knee)}
		for _, e := range c.KneeEvidence[:min(len(c.KneeEvidence), 10)] {
			out.Knee.Evidence = append(out.Knee.Evidence, clip(e, 256))
		}
	}
	for _, s := range c.Steps[:min(len(c.Steps), 64)] {
		st := cbv1.CapacityStep{
			TargetOpsPerSecond: s.Target, OpsPerSecond: s.Ops, Operations: s.Operations, Timeouts: s.Timeouts, Missed: s.Missed,
			P99Micros: s.P99, P999Micros: s.P999, Runs: s.Runs, Outcome: cbv1.CapacityMissed,
			Reason: clip(s.Reason, 512), Bottleneck: cbv1.BottleneckVerdict(s.Verdict), DebtWaitMillis: s.WaitMillis,
			DebtOutstanding: clip(s.Owed, 256), P99SpreadPercent: clip(s.Spread, 16),
		}
		if s.Met {
			st.Outcome = cbv1.CapacityMet
		}
		out.DebtWaitMillis += s.WaitMillis
		out.Steps = append(out.Steps, st)
	}
	return out
}

// clip bounds a string from a writer pod to what the status admits.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
