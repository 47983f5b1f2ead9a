package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

func TestVerdict(t *testing.T) {
	calm := &cbv1.ServerResults{NodesRead: 3}
	queued := &cbv1.ServerResults{NodesRead: 3, Total: cbv1.NodeServerResults{PendingPeak: 120, PendingStage: "MutationStage", Dropped: 1204}}
	busy := []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 300, LimitMillicores: 1000}}, {3, summary.WriterCPU{UsedMillicores: 980, LimitMillicores: 1000}}}
	idleCPU := []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 200, LimitMillicores: 1000, Procs: 2}}}
	tests := map[string]struct {
		e    Evidence
		want cbv1.Bottleneck
	}{
		"writer at its CPU limit, calm cluster": {
			e: Evidence{Operations: 1000, WindowMillis: 1000, CPU: busy, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 98,
				Evidence: []string{"writer 3 used 980m of its 1000m CPU limit (98%)"}},
		},
		"throttled and starved writer": {
			e: Evidence{Operations: 1000, WindowMillis: 1000, CPU: []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 500, Procs: 1, ThrottledPercent: 40, SchedP99Micros: 12000}}}, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 50, WriterThrottledPercent: 40, WriterSchedP99Micros: 12000,
				Evidence: []string{"writer 0 was CPU-throttled in 40% of scheduler periods", "writer 0's goroutines waited up to 12 ms for a thread (p99)"}},
		},
		"queued and dropping cluster, idle writers": {
			e: Evidence{Operations: 100000, Failed: 500, Timeouts: 500, WindowMillis: 10000, CPU: idleCPU, Server: queued},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"500 of 100,500 operations timed out", "nodes dropped 1,204 messages", "up to 120 tasks waited in MutationStage"}},
		},
		"both strained": {
			e: Evidence{Operations: 1000, WindowMillis: 1000, CPU: busy, Server: queued},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 98,
				Evidence: []string{"writer 3 used 980m of its 1000m CPU limit (98%)", "nodes dropped 1,204 messages", "up to 120 tasks waited in MutationStage"}},
		},
		"closed loop bound by requests in flight": {
			// 64 in flight at 4 ms allow 16,000 ops/s; 15,000 were done.
			e: Evidence{Operations: 150000, WindowMillis: 10000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 20, Evidence: []string{
				"throughput (15,000 ops/s) is what 64 requests in flight allow at 4,000 µs each (Little's law): raise writers.concurrency or writers.replicas",
				"the nodes showed no queueing, blocking, drops or timeouts"}},
		},
		"target rate met": {
			e:    Evidence{Operations: 100000, WindowMillis: 10000, TargetRate: 10000, CPU: idleCPU, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 20, Evidence: []string{"the target rate (10,000 ops/s) was met and neither side showed strain"}},
		},
		"nodes not read": {
			e:    Evidence{Operations: 150000, WindowMillis: 10000, MeanServiceMicros: 4000, InFlight: 64},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, Evidence: []string{"the nodes were not read, so the cluster's side is unknown"}},
		},
		"long GC pauses": {
			e: Evidence{Operations: 1000, WindowMillis: 10000, Server: &cbv1.ServerResults{NodesRead: 2,
				Total: cbv1.NodeServerResults{Logs: &cbv1.NodeLogResults{GCPauses: 6, GCTotalMillis: 4200, GCMaxMillis: 650}}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, Evidence: []string{"GC paused the nodes 4.2 s in total over a 10.0 s window"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(&tc.want, Verdict(tc.e)); diff != "" {
				t.Errorf("Verdict (-want +got):\n%s", diff)
			}
		})
	}
}
