package verdict

import (
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// Little's law takes the kinds of workload.operations into the mean service latency: 10
// requests in flight at 1 ms inserts and 9 ms scans, half each, allow 2000 ops/s, which the
// run reached, so the writers' concurrency bounded it.
func TestJudgeWeighsKinds(t *testing.T) {
	r := &cbv1.Results{Operations: 20000, WindowMillis: 10000, OpsPerSecond: 2000, Server: &cbv1.ServerResults{NodesRead: 1},
		Writes:           &cbv1.OperationResults{Operations: 10000, Service: cbv1.Latency{Mean: 1000}},
		OperationsByKind: []cbv1.KindResults{{Kind: cbv1.OperationScanPartition, Operations: 10000, Response: cbv1.Latency{Mean: 9000}}},
	}
	sums := []*summary.Summary{{CPU: &summary.WriterCPU{UsedMillicores: 100, LimitMillicores: 1000, Procs: 2, Concurrency: 10}}}
	b := Judge(r, sums)
	if b == nil {
		t.Fatal("no verdict")
	}
	reasons := strings.Join(b.Evidence, "; ")
	if !strings.Contains(reasons, "at 5,000 µs each (Little's law)") {
		t.Errorf("verdict %s: %s; want Little's law at the mean of inserts and scans, 5,000 µs", b.Verdict, reasons)
	}
}
