package report

import (
	"fmt"
	"text/tabwriter"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// capacityTable writes a capacity search's answer and its steps, in the order they ran.
func capacityTable(w *errWriter, c *cbv1.CapacityResults) {
	if c == nil {
		return
	}
	line := fmt.Sprintf("capacity %d ops/s (%s)", c.OpsPerSecond, c.Stop)
	if c.MissedOpsPerSecond > 0 {
		line += fmt.Sprintf(", lowest rate missed %d ops/s", c.MissedOpsPerSecond)
	}
	if c.Knee != nil {
		line += fmt.Sprintf(", bottleneck at the knee: %s", c.Knee.Verdict)
	}
	if c.DebtWaitMillis > 0 {
		line += fmt.Sprintf(", %s waiting for the nodes' debt", time.Duration(c.DebtWaitMillis)*time.Millisecond)
	}
	w.printf("%s\n", line)
	if c.Knee != nil {
		for _, e := range c.Knee.Evidence {
			w.printf("  %s\n", e)
		}
	}
	tw := w.table(tabwriter.AlignRight)
	tw.row("step\ttarget\tops/s\tp99\tp99.9\tp99 ±\truns\ttimeouts\tmissed\toutcome\tbottleneck\tdebt wait\t\n")
	for i, s := range c.Steps {
		tw.row("%d\t%d\t%d\t%s\t%s\t%s%%\t%d\t%d\t%d\t%s\t%s\t%s\t\n", i+1, s.TargetOpsPerSecond, s.OpsPerSecond,
			Micros(s.P99Micros), Micros(s.P999Micros), orDash(s.P99SpreadPercent), s.Runs, s.Timeouts, s.Missed,
			s.Outcome, orDash(string(s.Bottleneck)), time.Duration(s.DebtWaitMillis)*time.Millisecond)
	}
	tw.flush()
	for i, s := range c.Steps {
		if s.Reason != "" {
			w.printf("step %d missed: %s\n", i+1, s.Reason)
		}
		if s.DebtOutstanding != "" {
			w.printf("step %d left debt the wait gave up on: %s\n", i+1, s.DebtOutstanding)
		}
	}
	w.printf("\n")
}

// costLine writes what the window cost beside its throughput, when the run was priced.
func costLine(w *errWriter, c *cbv1.CostResults, opsPerSecond int64) {
	if c == nil {
		return
	}
	line := fmt.Sprintf("cost at %d ops/s: datacenter %s %s an hour", opsPerSecond, orDash(c.DatacenterPerHour), c.Currency)
	if c.PerMillionOperations != "" {
		line += fmt.Sprintf(", %s %s per million operations", c.PerMillionOperations, c.Currency)
	}
	if c.WritersPerHour != "" {
		line += fmt.Sprintf("; writers apart %s %s an hour, %s per million", c.WritersPerHour, c.Currency, orDash(c.WritersPerMillionOperations))
	}
	w.printf("%s\n", line)
	if c.Note != "" {
		w.printf("%s\n", c.Note)
	}
}
