package sweep

import (
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A point's latency is its writes', its reads' without writes, and its first kind of
// workload.operations' with neither.
func TestLatencyOfEachMix(t *testing.T) {
	writes, reads, scans := cbv1.Latency{P99: 1}, cbv1.Latency{P99: 2}, cbv1.Latency{P99: 3}
	kinds := []cbv1.KindResults{{Kind: cbv1.OperationScanPartition, Operations: 5, Response: scans}, {Kind: cbv1.OperationDelete, Response: cbv1.Latency{P99: 4}}}
	cases := map[string]struct {
		r    cbv1.Results
		want cbv1.Latency
	}{
		"writes and a kind": {r: cbv1.Results{Writes: &cbv1.OperationResults{Operations: 1, Response: writes}, OperationsByKind: kinds}, want: writes},
		"reads and a kind":  {r: cbv1.Results{Reads: &cbv1.OperationResults{Operations: 1, Response: reads}, OperationsByKind: kinds}, want: reads},
		"kinds alone":       {r: cbv1.Results{OperationsByKind: kinds}, want: scans},
		"nothing":           {want: cbv1.Latency{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := latency(&tc.r); got.P99 != tc.want.P99 {
				t.Errorf("p99 %d, want %d", got.P99, tc.want.P99)
			}
		})
	}
}
