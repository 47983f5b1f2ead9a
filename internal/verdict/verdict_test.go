package verdict

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// nodes builds server results of nodes read with their CPU (millicores of 2 cores; -1: not
// read) and a total.
func nodes(total cbv1.NodeServerResults, cpu ...int64) *cbv1.ServerResults {
	s := &cbv1.ServerResults{NodesRead: int32(len(cpu)), Total: total}
	for i, m := range cpu {
		n := cbv1.NodeServerResults{Node: "127.0.0." + string(rune('1'+i))}
		if m >= 0 {
			n.CPUMillicores, n.CPUCores = m, 2
		}
		s.Nodes = append(s.Nodes, n)
	}
	return s
}

// withLimit gives the nodes the datacenter's CPU limit, as the controller does at merge time.
func withLimit(s *cbv1.ServerResults, millicores int64) *cbv1.ServerResults {
	SetCPULimit(s, millicores)
	return s
}

func TestVerdict(t *testing.T) {
	calm := &cbv1.ServerResults{NodesRead: 3}
	queued := &cbv1.ServerResults{NodesRead: 3, Total: cbv1.NodeServerResults{PendingPeak: 120, PendingStage: "MutationStage", Dropped: 1204}}
	busy := []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 300, LimitMillicores: 1000}}, {3, summary.WriterCPU{UsedMillicores: 980, LimitMillicores: 1000}}}
	idleCPU := []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 200, LimitMillicores: 1000, Procs: 2}}}
	throttled := []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 250, LimitMillicores: 250, ThrottledPercent: 60}}}
	tests := map[string]struct {
		e    Evidence
		want cbv1.Bottleneck
	}{
		"writer at its CPU limit, calm cluster": {
			e: Evidence{Operations: 1000, WindowMillis: 1000, OpsPerSecond: 1000, CPU: busy, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 98,
				Evidence: []string{"writer 3 used 980m of its 1000m CPU limit (98%)"}},
		},
		"throttled and starved writer": {
			e: Evidence{Operations: 1000, WindowMillis: 1000, OpsPerSecond: 1000, CPU: []WriterCPU{{0, summary.WriterCPU{UsedMillicores: 500, Procs: 1, ThrottledPercent: 40, SchedP99Micros: 12000}}}, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 50, WriterThrottledPercent: 40, WriterSchedP99Micros: 12000,
				Evidence: []string{"writer 0 was CPU-throttled in 40% of scheduler periods", "writer 0's goroutines waited up to 12 ms for a thread (p99)"}},
		},
		"queued and dropping cluster, idle writers": {
			e: Evidence{Operations: 100000, Failed: 500, ServerTimeouts: 500, WindowMillis: 10000, OpsPerSecond: 10000, CPU: idleCPU, Server: queued},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"500 of 100,500 operations timed out", "nodes dropped 1,204 messages", "up to 120 tasks waited in MutationStage"}},
		},
		"both strained": {
			e: Evidence{Operations: 1000, WindowMillis: 1000, OpsPerSecond: 1000, CPU: busy, Server: queued},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 98,
				Evidence: []string{"writer 3 used 980m of its 1000m CPU limit (98%)", "nodes dropped 1,204 messages", "up to 120 tasks waited in MutationStage"}},
		},
		// Scenario 1: an open loop that met its target is its own verdict, even beside a
		// busy writer and a flush queue sample.
		"target met, with strain on both sides named as notes": {
			e: Evidence{Operations: 99000, WindowMillis: 10000, OpsPerSecond: 9900, TargetRate: 10000, CPU: busy,
				Server: &cbv1.ServerResults{NodesRead: 1, Total: cbv1.NodeServerResults{PendingPeak: 9, PendingStage: "MemtableFlushWriter"}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckTargetMet, WriterCPUPercent: 98, Evidence: []string{
				"the target rate (10,000 ops/s) was met: 9,900 ops/s achieved",
				"met, though writer 3 used 980m of its 1000m CPU limit (98%)",
				"met, though up to 9 tasks waited in MemtableFlushWriter"}},
		},
		"target missed with nothing strained": {
			e: Evidence{Operations: 90000, WindowMillis: 10000, OpsPerSecond: 9000, TargetRate: 10000, CPU: idleCPU, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 20,
				Evidence: []string{"9,000 of the target 10,000 ops/s were achieved, yet neither side showed strain"}},
		},
		// Scenario 2: 1 in flight at 500 µs allows 2,000 ops/s, which was reached, and the
		// node read idle.
		"closed loop on an idle node: concurrency-bound": {
			e: Evidence{Operations: 20000, WindowMillis: 10000, OpsPerSecond: 2000, MeanServiceMicros: 500, InFlight: 1, CPU: idleCPU, Server: nodes(cbv1.NodeServerResults{}, 300)},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 20, Evidence: []string{
				"throughput (2,000 ops/s) is what 1 request in flight allows at 500 µs each (Little's law): raise writers.concurrency or writers.replicas",
				"the busiest node, 127.0.0.1, used 15% of the CPU it could use, and the nodes showed no queueing, drops or timeouts"}},
		},
		"closed loop, quiet queues, node CPU unknown: unclear, not Writers": {
			e: Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 20, Evidence: []string{
				"throughput (15,000 ops/s) is what 64 requests in flight allow at 4,000 µs each (Little's law)",
				"the CPU of the nodes against what they could use was not known (3 nodes whose figures were summed, not listed), and a saturated node with fewer requests in flight than its stage threads queues nothing: the queues alone cannot tell"}},
		},
		// The one-in-flight run of a node started by hand, its CPU not reached: one request
		// at a time saturates no node, so the writers are named, with what was missing.
		"one request in flight, the node's CPU not read": {
			e: Evidence{Operations: 34270, WindowMillis: 10000, OpsPerSecond: 3427, MeanServiceMicros: 291, InFlight: 1, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 1, Nodes: []cbv1.NodeServerResults{{Node: "127.0.0.1",
					NotAvailable: []string{"CPU: the node is not on its writer's machine and its metrics endpoint did not answer"}}}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 20, Evidence: []string{
				"throughput (3,427 ops/s) is what 1 request in flight allows at 291 µs each (Little's law): raise writers.concurrency or writers.replicas",
				"one request in flight keeps no node busy: each waits, idle, while the request and its answer travel, and the nodes showed no queueing, drops or timeouts",
				"the CPU of the nodes against what they could use was not known (node 127.0.0.1: the node is not on its writer's machine and its metrics endpoint did not answer)"}},
		},
		// Two requests in flight cannot keep four cores busy: 70% of them is background work
		// (compaction, GC), not saturation by the run.
		"few requests in flight on a node with more cores": {
			e: Evidence{Operations: 50000, WindowMillis: 10000, OpsPerSecond: 5000, MeanServiceMicros: 400, InFlight: 2, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 1, Nodes: []cbv1.NodeServerResults{{Node: "127.0.0.1", CPUMillicores: 2800, CPUCores: 4}}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 20, Evidence: []string{
				"throughput (5,000 ops/s) is what 2 requests in flight allow at 400 µs each (Little's law): raise writers.concurrency or writers.replicas",
				"the busiest node, 127.0.0.1, used 70% of the 4.0 cores it could use, which 2 requests in flight cannot keep busy, and the nodes showed no queueing, drops or timeouts"}},
		},
		// One request in flight on a one-core node at 70%: it may be the node.
		"one request in flight on a busy one-core node": {
			e: Evidence{Operations: 20000, WindowMillis: 10000, OpsPerSecond: 2000, MeanServiceMicros: 500, InFlight: 1, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 1, Nodes: []cbv1.NodeServerResults{{Node: "127.0.0.1", CPUMillicores: 700, CPUCores: 1}}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 20, Evidence: []string{
				"throughput (2,000 ops/s) is what 1 request in flight allows at 500 µs each (Little's law)",
				"node 127.0.0.1 used 70% of the CPU it could use: more requests in flight may or may not raise throughput"}},
		},
		// Scenario 3: short queues, yet a node's CPU is spent.
		"saturated node with short queues": {
			e: Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU, Server: nodes(cbv1.NodeServerResults{}, 1900, 400)},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"node 127.0.0.1's CPU was saturated: it used 1.9 cores of the 2.0 cores it could use (95%)"}},
		},
		// Across datacenters: dc2's node is the one spent, and the verdict says which.
		"saturated node in the second datacenter": {
			e: Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 2, Nodes: []cbv1.NodeServerResults{
					{Node: "10.0.0.1", Datacenter: "dc1", CPUMillicores: 300, CPUCores: 2},
					{Node: "10.1.0.1", Datacenter: "dc2", CPUMillicores: 1950, CPUCores: 2}}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"node 10.1.0.1 (dc2)'s CPU was saturated: it used 1.9 cores of the 2.0 cores it could use (97%)"}},
		},
		// Scenario 3 with the node pinned to one core of the machine: its affinity, not the
		// machine, is what it could use.
		"node pinned to one core": {
			e: Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 1, Nodes: []cbv1.NodeServerResults{{Node: "127.0.0.1", CPUMillicores: 960, CPUCores: 1, CPULimitMillicores: 1000}}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"node 127.0.0.1's CPU was saturated: it used 1.0 cores of the 1.0 cores it could use (96%)"}},
		},
		// On Kubernetes the metrics endpoint gives CPU without cores; the datacenter's limit
		// (SetCPULimit) lets the quiet closed loop be judged.
		"closed loop on cass-operator pods with a CPU limit": {
			e: Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU,
				Server: withLimit(&cbv1.ServerResults{NodesRead: 2, Nodes: []cbv1.NodeServerResults{{Node: "10.0.0.1", CPUMillicores: 600}, {Node: "10.0.0.2", CPUMillicores: 450}}}, 4000)},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 20, Evidence: []string{
				"throughput (15,000 ops/s) is what 64 requests in flight allow at 4,000 µs each (Little's law): raise writers.concurrency or writers.replicas",
				"the busiest node, 10.0.0.1, used 15% of the CPU it could use, and the nodes showed no queueing, drops or timeouts"}},
		},
		"cass-operator pod at its fractional CPU limit": {
			e: Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64, CPU: idleCPU,
				Server: withLimit(&cbv1.ServerResults{NodesRead: 1, Nodes: []cbv1.NodeServerResults{{Node: "10.0.0.1", CPUMillicores: 1450}}}, 1500)},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"node 10.0.0.1's CPU was saturated: it used 1.4 cores of the 1.5 cores it could use (96%)"}},
		},
		// Scenario 4: a throttled writer's own client timeouts are its sign, not the cluster's.
		"throttled writer with client timeouts": {
			e: Evidence{Operations: 10000, Failed: 300, ClientTimeouts: 300, WindowMillis: 10000, OpsPerSecond: 1000, CPU: throttled, Server: nodes(cbv1.NodeServerResults{}, 200)},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 100, WriterThrottledPercent: 60, Evidence: []string{
				"writer 0 used 250m of its 250m CPU limit (100%)",
				"writer 0 was CPU-throttled in 60% of scheduler periods",
				"300 operations timed out in the writers, which were held back themselves"}},
		},
		// Scenario 5: a paused node: timeouts and drops, the writers idle.
		"a paused node": {
			e: Evidence{Operations: 5000, Failed: 800, ServerTimeouts: 800, WindowMillis: 10000, OpsPerSecond: 500, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 2, Total: cbv1.NodeServerResults{Dropped: 40}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"800 of 5,800 operations timed out", "nodes dropped 40 messages"}},
		},
		// Scenario 6: a stopped node with RF above the live nodes.
		"a stopped node: unavailable and unreadable": {
			e: Evidence{Operations: 0, Failed: 900, Unavailable: 900, WindowMillis: 10000, CPU: idleCPU,
				Server: &cbv1.ServerResults{NodesRead: 1, Errors: []string{"writer 1: reading 1 of 1 nodes failed: node 127.0.0.2: reading system_views.thread_pools failed"}}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20, Evidence: []string{
				"900 operations failed Unavailable: fewer replicas were alive than the consistency level needs",
				"a node could not be read: writer 1: reading 1 of 1 nodes failed: node 127.0.0.2: reading system_views.thread_pools failed"}},
		},
		"overloaded attempts": {
			e: Evidence{Operations: 100000, WindowMillis: 10000, OpsPerSecond: 10000, Overloaded: 42, CPU: idleCPU, Server: calm},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 20,
				Evidence: []string{"the nodes refused 42 operations as Overloaded"}},
		},
		"nodes not read": {
			e:    Evidence{Operations: 150000, WindowMillis: 10000, OpsPerSecond: 15000, MeanServiceMicros: 4000, InFlight: 64},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, Evidence: []string{"the nodes were not read, so the cluster's side is unknown"}},
		},
		"long GC pauses": {
			e: Evidence{Operations: 1000, WindowMillis: 10000, OpsPerSecond: 100, Server: &cbv1.ServerResults{NodesRead: 2,
				Total: cbv1.NodeServerResults{GC: &cbv1.NodeGCResults{Source: cbv1.GCSourceGCLog, Pauses: 6, TotalMillis: 4200, MaxMillis: 650}}}},
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
