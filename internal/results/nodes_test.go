package results

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/verdict"
)

func TestMergeAndAnomalies(t *testing.T) {
	sums := []*summary.Summary{
		{Index: 0, Server: &summary.Server{Nodes: []summary.ServerNode{
			{Node: "10.0.0.3", Mutations: 5000, Dropped: 1204, PendingPeak: 41, PendingStage: "MutationStage", BacklogBefore: 1, BacklogAfter: 30, Flushes: 4, TableMiBBefore: 10, TableMiBAfter: 90,
				Logs: true, GCSource: summary.GCFromSystemLogs, GCPauses: 3, GCTotalMillis: 1500, GCMaxMillis: 650, Worst: "G1 Old Generation GC in 650ms."},
		}}},
		{Index: 1, Server: &summary.Server{Nodes: []summary.ServerNode{
			{Node: "10.0.0.1", Mutations: 6000, Blocked: 35, BlockedPeak: 12, BacklogBefore: 1, BacklogAfter: 11, Hints: 2, Logs: true, GCSource: summary.GCFromSystemLogs, GCPauses: 8, GCTotalMillis: 2700, GCMaxMillis: 400},
		}, Rest: &summary.ServerNode{Count: 2, Mutations: 9000, Logs: true}}},
		nil,
		{Index: 3, Server: &summary.Server{Error: "node 10.0.0.9: reading system_views.thread_pools failed"}},
	}
	got := MergeServer(sums)
	if got.NodesRead != 4 || len(got.Nodes) != 2 || got.Nodes[0].Node != "10.0.0.3" {
		t.Fatalf("merged %d nodes read, listed %+v", got.NodesRead, got.Nodes)
	}
	if got.Total.Mutations != 20000 || got.Total.Dropped != 1204 || got.Total.CompactionBacklogAfter != 41 {
		t.Errorf("total %+v", got.Total)
	}
	want := []string{
		"node 10.0.0.3 dropped 1,204 messages",
		"node 10.0.0.3 queued up to 41 tasks in MutationStage",
		"node 10.0.0.1 blocked 35 requests (up to 12 at once)",
		"node 10.0.0.1 holds 2 hint files for other nodes",
		"compaction backlog grew from 2 to 41 tasks",
		"GC paused 4.2 s in total, worst 650 ms on node 10.0.0.3",
	}
	if diff := cmp.Diff(want, got.Anomalies); diff != "" {
		t.Errorf("anomalies (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"writer 3: node 10.0.0.9: reading system_views.thread_pools failed"}, got.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if MergeServer([]*summary.Summary{{Index: 0}}) != nil {
		t.Error("no server figures merged into something")
	}
}

// maxQuote is the longest log line a writer quotes (internal/nodewatch's bound).
const maxQuote = 160

// worstNode has every figure at its widest: 19-digit counts, the longest names and quotes.
func worstNode(i int) summary.ServerNode {
	big := int64(math.MaxInt64)
	return summary.ServerNode{
		Node: fmt.Sprintf("fd00:1234:5678:9abc:def0:1234:5678:%04x", i), Datacenter: strings.Repeat("d", 80), Mutations: big, Reads: big,
		PendingPeak: big, PendingStage: "Native-Transport-Requests", BlockedPeak: big, Blocked: big, Dropped: big,
		Hints: big, Compactions: big, BacklogBefore: big, BacklogAfter: big, BacklogPeak: big, CompactionBytesLeft: big,
		Flushes: big, TableMiBBefore: big, TableMiBAfter: big, DiskMiB: big, CoordWriteP99Micros: big, CoordReadP99Micros: big, CoordResolution: big,
		CPUMillicores: big, CPUCores: math.MaxInt32, CPULimitMillicores: big, GCSource: summary.GCFromSystemLogs,
		SSTableSource: summary.SSTablesFromMetrics, SSTablesBefore: big, SSTablesAfter: big, SSTablesPeak: big,
		PendingCompactions: &big, PendingCompactionsPeak: &big,
		Logs: true, GCPauses: big, GCTotalMillis: big, GCMaxMillis: big, LogErrors: big, OutOfMemory: big,
		Worst: strings.Repeat("x", maxQuote),
	}
}

// The status of a 64-writer, 32-node run, every figure at its widest, stays far below the
// 1.5 MiB an object may hold.
func TestStatusSizeBound(t *testing.T) {
	var sums []*summary.Summary
	for w := range 64 {
		s := &summary.Summary{Index: int32(w), Writers: 64, CPU: &summary.WriterCPU{UsedMillicores: math.MaxInt64}}
		if w < 32 {
			// Every figure at 19 digits does not fit a writer's section (it would go into Rest,
			// TestServerSectionBound); the status is measured with each node listed anyway.
			s.Server = &summary.Server{Nodes: []summary.ServerNode{worstNode(w)}, Error: strings.Repeat("e", 256)}
		}
		sums = append(sums, s)
	}
	srv := MergeServer(sums)
	srv.Timeline = &cbv1.ServerTimeline{IntervalMillis: math.MaxInt64}
	for range maxMergedServerPoints {
		srv.Timeline.Points = append(srv.Timeline.Points, cbv1.ServerTimelinePoint{OffsetMillis: math.MaxInt64, PendingPeak: math.MaxInt64,
			Compactions: math.MaxInt64, Flushes: math.MaxInt64, GCPauses: math.MaxInt64, GCMillis: math.MaxInt64,
			HintsStored: math.MaxInt64, HintsDelivered: math.MaxInt64})
	}
	srv.Anomalies = nil
	for range verdict.MaxAnomalies {
		srv.Anomalies = append(srv.Anomalies, strings.Repeat("a", 256))
	}
	res := cbv1.Results{Server: srv, Bottleneck: &cbv1.Bottleneck{Verdict: cbv1.BottleneckUnclear,
		WriterCPUPercent: math.MaxInt64, WriterThrottledPercent: math.MaxInt64, WriterSchedP99Micros: math.MaxInt64}}
	for range 10 {
		res.Bottleneck.Evidence = append(res.Bottleneck.Evidence, strings.Repeat("b", 256))
	}
	for w := range 64 {
		res.PerWriter = append(res.PerWriter, cbv1.WriterResult{Index: int32(w), Operations: math.MaxInt64, OpsPerSecond: math.MaxInt64,
			Errors: math.MaxInt64, P99Micros: math.MaxInt64, Outcome: "Failed: " + strings.Repeat("f", 256)})
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	srvBytes, _ := json.Marshal(srv)
	perNode, _ := json.Marshal(srv.Nodes[0])
	t.Logf("results %d bytes, of which server %d (%d per node listed, %d nodes)", len(b), len(srvBytes), len(perNode), len(srv.Nodes))
	if len(srv.Nodes) != 32 || srv.NodesRead != 32 {
		t.Fatalf("listed %d of %d nodes", len(srv.Nodes), srv.NodesRead)
	}
	if len(b) > 128<<10 {
		t.Errorf("results are %d bytes, want under 128 KiB (the object limit is 1.5 MiB)", len(b))
	}
}

// A figure no source reached is said to be missing, with why, in status; the counters of a
// JVM that logs no GC are its GC source.
func TestMergeSaysWhyFiguresAreMissing(t *testing.T) {
	sums := []*summary.Summary{{Server: &summary.Server{Nodes: []summary.ServerNode{
		{Node: "10.0.0.1", Mutations: 1, Missing: []string{summary.MissingCPURemote, summary.MissingGCRemote, "unknown code"}},
		{Node: "127.0.0.1", Mutations: 1, CPUMillicores: 300, CPUCores: 2, GCSource: summary.GCFromPerfData, GCPauses: 4, GCTotalMillis: 31},
	}}}}
	got := MergeServer(sums)
	byNode := map[string]cbv1.NodeServerResults{}
	for _, n := range got.Nodes {
		byNode[n.Node] = n
	}
	remote := byNode["10.0.0.1"]
	if len(remote.NotAvailable) != 2 || !strings.HasPrefix(remote.NotAvailable[0], "CPU: the node is not on its writer's machine") ||
		!strings.HasPrefix(remote.NotAvailable[1], "GC: the node is not on its writer's machine") || remote.GC != nil {
		t.Errorf("remote node: GC %+v, not available %q", remote.GC, remote.NotAvailable)
	}
	local := byNode["127.0.0.1"]
	if diff := cmp.Diff(&cbv1.NodeGCResults{Source: cbv1.GCSourceHSPerfData, Pauses: 4, TotalMillis: 31}, local.GC); diff != "" || local.NotAvailable != nil {
		t.Errorf("local node: not available %q, GC (-want +got):\n%s", local.NotAvailable, diff)
	}
	for code, why := range missingReasons {
		if len(why) > 256 {
			t.Errorf("%s: %d characters, over the API's 256", code, len(why))
		}
	}
}
