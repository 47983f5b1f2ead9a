package report

import (
	"bytes"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// TestCapacityAndCostInTheTable: the run table gives the capacity, each step, the knee's
// verdict and the cost beside the throughput.
func TestCapacityAndCostInTheTable(t *testing.T) {
	run := &cbv1.BenchmarkRun{}
	run.Name = "search"
	run.Status.Results = &cbv1.Results{OpsPerSecond: 900, Operations: 9000,
		Cost: &cbv1.CostResults{Currency: "EUR", DatacenterPerHour: "1.5", PerMillionOperations: "0.463", Note: "not priced: the writers: no CPU or memory requested to price"},
		Capacity: &cbv1.CapacityResults{OpsPerSecond: 1000, MissedOpsPerSecond: 1020, Stop: cbv1.CapacityConverged, DebtWaitMillis: 4000,
			Knee: &cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, Evidence: []string{"MutationStage queued 120 tasks on 127.0.0.1"}},
			Steps: []cbv1.CapacityStep{
				{TargetOpsPerSecond: 1000, OpsPerSecond: 998, P99Micros: 4100, P999Micros: 9000, P99SpreadPercent: "6.2", Runs: 1, Outcome: cbv1.CapacityMet, Bottleneck: cbv1.BottleneckTargetMet},
				{TargetOpsPerSecond: 1020, OpsPerSecond: 1001, P99Micros: 31000, P999Micros: 90000, P99SpreadPercent: "12.5", Runs: 3, Outcome: cbv1.CapacityMissed,
					Reason: "p99 31ms over 20ms", Bottleneck: cbv1.BottleneckCluster, DebtWaitMillis: 4000},
			}},
	}
	var b bytes.Buffer
	if err := runTable(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"cost at 900 ops/s: datacenter 1.5 EUR an hour, 0.463 EUR per million operations\n",
		"not priced: the writers: no CPU or memory requested to price\n",
		"capacity 1000 ops/s (Converged), lowest rate missed 1020 ops/s, bottleneck at the knee: Cluster, 4s waiting for the nodes' debt\n",
		"  MutationStage queued 120 tasks on 127.0.0.1\n",
		"step 2 missed: p99 31ms over 20ms\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, row := range [][]string{{"1", "1000", "998", "4.10ms", "9.00ms", "6.2%", "1", "Met", "TargetMet", "0s"}, {"2", "1020", "1001", "31.0ms", "90.0ms", "12.5%", "3", "Missed", "Cluster", "4s"}} {
		if !hasRow(out, row) {
			t.Errorf("table lacks the step row %v:\n%s", row, out)
		}
	}
}

// hasRow says whether a line of out has exactly these fields, ignoring the padding and in
// order, among others.
func hasRow(out string, fields []string) bool {
	for _, line := range strings.Split(out, "\n") {
		got := strings.Fields(line)
		i := 0
		for _, f := range got {
			if i < len(fields) && f == fields[i] {
				i++
			}
		}
		if i == len(fields) && len(got) > 0 && got[0] == fields[0] {
			return true
		}
	}
	return false
}
