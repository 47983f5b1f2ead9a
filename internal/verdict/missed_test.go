package verdict

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// A capacity step that reached its rate but missed its p99 is judged on its signs, not
// called TargetMet: a saturated node is the cluster, a throttled writer the writers, and no
// sign at all is Unclear with what each side used.
func TestJudgeMissedNamesWhatMadeAReachedStepMiss(t *testing.T) {
	reached := func(server *cbv1.ServerResults) *cbv1.Results {
		return &cbv1.Results{Operations: 80000, WindowMillis: 10000, OpsPerSecond: 8000, Server: server,
			Schedule: &cbv1.ScheduleResults{TargetOpsPerSecond: 8000}}
	}
	idle := []*summary.Summary{{CPU: &summary.WriterCPU{UsedMillicores: 300, LimitMillicores: 1000, Rate: 8000}}}
	throttled := []*summary.Summary{{CPU: &summary.WriterCPU{UsedMillicores: 250, LimitMillicores: 250, Rate: 8000, ThrottledPercent: 55}}}
	barely := []*summary.Summary{{CPU: &summary.WriterCPU{UsedMillicores: 3, Procs: 2, Rate: 8000}}}
	const why = "p99 245ms over 200ms"
	tests := map[string]struct {
		r    *cbv1.Results
		sums []*summary.Summary
		want cbv1.Bottleneck
	}{
		"a node at its CPU": {
			r: reached(nodes(cbv1.NodeServerResults{}, 1900)), sums: idle,
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster, WriterCPUPercent: 30, Evidence: []string{
				"8,000 ops/s were reached, but p99 245ms over 200ms",
				"node 127.0.0.1's CPU was saturated: it used 1.9 cores of the 2.0 cores it could use (95%)"}},
		},
		"a throttled writer": {
			r: reached(nodes(cbv1.NodeServerResults{}, 600)), sums: throttled,
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckWriters, WriterCPUPercent: 100, WriterThrottledPercent: 55, Evidence: []string{
				"8,000 ops/s were reached, but p99 245ms over 200ms",
				"writer 0 used 250m of its 250m CPU limit (100%)",
				"writer 0 was CPU-throttled in 55% of scheduler periods"}},
		},
		"no sign": {
			r: reached(nodes(cbv1.NodeServerResults{}, 1200)), sums: idle,
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, WriterCPUPercent: 30, Evidence: []string{
				"8,000 ops/s were reached, but p99 245ms over 200ms, and neither side showed strain",
				"the busiest node, 127.0.0.1, used 60% of the 2.0 cores it could use; the busiest writer used 30% of its CPU"}},
		},
		// A step of a few operations a second: the writer was read and used almost nothing,
		// which is a reading, not "not read" (CI's machine once said the latter).
		"no sign, a writer barely used": {
			r: reached(nodes(cbv1.NodeServerResults{}, 1200)), sums: barely,
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, Evidence: []string{
				"8,000 ops/s were reached, but p99 245ms over 200ms, and neither side showed strain",
				"the busiest node, 127.0.0.1, used 60% of the 2.0 cores it could use; the busiest writer used under 1% of its CPU"}},
		},
		"no sign, no writer's CPU": {
			r: reached(nodes(cbv1.NodeServerResults{}, 1200)), sums: []*summary.Summary{{}},
			want: cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear, Evidence: []string{
				"8,000 ops/s were reached, but p99 245ms over 200ms, and neither side showed strain",
				"the busiest node, 127.0.0.1, used 60% of the 2.0 cores it could use; the writers' CPU was not read"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if Judge(tc.r, tc.sums).Verdict != cbv1.BottleneckTargetMet {
				t.Fatalf("the step reached its rate: Judge should say TargetMet")
			}
			got := JudgeMissed(tc.r, tc.sums, why)
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("JudgeMissed (-want +got):\n%s", diff)
			}
		})
	}

	// A step that fell short of its rate keeps the verdict a run gets.
	short := &cbv1.Results{Operations: 60000, WindowMillis: 10000, OpsPerSecond: 6000, Server: nodes(cbv1.NodeServerResults{}, 1900),
		Schedule: &cbv1.ScheduleResults{TargetOpsPerSecond: 8000}}
	if diff := cmp.Diff(Judge(short, idle), JudgeMissed(short, idle, why)); diff != "" {
		t.Errorf("a step short of its rate (-Judge +JudgeMissed):\n%s", diff)
	}
}

// A node its cgroup's quota throttled is the cluster's sign even when its CPU, averaged over
// the window, read under the saturation line (a quota leaves idle gaps between periods).
func TestANodeThrottledByItsQuotaIsTheCluster(t *testing.T) {
	throttled := int64(64)
	server := &cbv1.ServerResults{NodesRead: 1, Nodes: []cbv1.NodeServerResults{{
		Node: "127.0.0.1", CPUMillicores: 430, CPUCores: 2, CPULimitMillicores: 500, CPUThrottledPercent: &throttled}}}
	r := &cbv1.Results{Operations: 57550, WindowMillis: 10000, OpsPerSecond: 5755, Server: server,
		Schedule: &cbv1.ScheduleResults{TargetOpsPerSecond: 6000}}
	idle := []*summary.Summary{{CPU: &summary.WriterCPU{UsedMillicores: 300, LimitMillicores: 1000, Rate: 6000}}}
	b := Judge(r, idle)
	want := []string{"node 127.0.0.1 was held by its cgroup's CPU quota (0.5 cores) in 64% of scheduler periods"}
	if b.Verdict != cbv1.BottleneckCluster || !cmp.Equal(b.Evidence, want) {
		t.Errorf("verdict %s %q, want Cluster %q", b.Verdict, b.Evidence, want)
	}
	throttled = 5
	if b := Judge(r, idle); b.Verdict == cbv1.BottleneckCluster {
		t.Errorf("5%% of periods throttled made the verdict Cluster: %q", b.Evidence)
	}
}

// A sign summed over the nodes names where it was seen, with each node's datacenter, so that a
// run across datacenters says which one was at fault.
func TestSummedSignsNameTheNodesAndTheirDatacenters(t *testing.T) {
	server := &cbv1.ServerResults{NodesRead: 3,
		Total: cbv1.NodeServerResults{PendingPeak: 40, PendingStage: "MutationStage", Dropped: 7},
		Nodes: []cbv1.NodeServerResults{
			{Node: "10.0.0.1", Datacenter: "dc1", PendingPeak: 2},
			{Node: "10.1.0.1", Datacenter: "dc2", PendingPeak: 40, Dropped: 5},
			{Node: "10.1.0.2", Datacenter: "dc2", Dropped: 2},
		}}
	b := Verdict(Evidence{Operations: 60000, WindowMillis: 10000, OpsPerSecond: 6000, TargetRate: 8000, Server: server})
	want := []string{
		"nodes dropped 7 messages (most on node 10.1.0.1 (dc2), then 10.1.0.2 (dc2))",
		"up to 40 tasks waited in MutationStage (most on node 10.1.0.1 (dc2), then 10.0.0.1 (dc1))",
	}
	if b.Verdict != cbv1.BottleneckCluster || !cmp.Equal(b.Evidence, want) {
		t.Errorf("verdict %s %q, want Cluster %q", b.Verdict, b.Evidence, want)
	}
}
