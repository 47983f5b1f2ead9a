package report_test

import (
	"bytes"
	"path/filepath"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/verdict"
)

// The server section and the verdict, on the golden run with figures from three nodes as
// writers report them (one node counted only in the total).
func ptr(v int64) *int64 { return &v }

func TestGoldenServer(t *testing.T) {
	run := reporttest.Run("ns")
	sums := []*summary.Summary{
		{Index: 0, CPU: &summary.WriterCPU{UsedMillicores: 310, LimitMillicores: 1000, Procs: 1, Concurrency: 64}, Server: &summary.Server{Nodes: []summary.ServerNode{
			{Node: "10.0.0.3", Mutations: 3_210_000, PendingPeak: 41, PendingStage: "MutationStage", Dropped: 1204, Compactions: 12, BacklogBefore: 1, BacklogAfter: 30, BacklogPeak: 33,
				Flushes: 9, TableMiBBefore: 120, TableMiBAfter: 2210, DiskMiB: 2400, CoordWriteP99Micros: 3000, CoordResolution: 1000,
				SSTableSource: summary.SSTablesFromDisk, SSTablesBefore: 4, SSTablesAfter: 37, SSTablesPeak: 40,
				CPUMillicores: 1730, CPUCores: 8, Logs: true, GCSource: summary.GCFromSystemLogs, GCPauses: 3, GCTotalMillis: 1500, GCMaxMillis: 650, Worst: "G1 Old Generation GC in 650ms.  G1 Old Gen: 3 -> 2"},
		}}},
		{Index: 1, CPU: &summary.WriterCPU{UsedMillicores: 290, LimitMillicores: 1000, Procs: 1, Concurrency: 64}, Server: &summary.Server{Nodes: []summary.ServerNode{
			{Node: "10.0.0.1", Mutations: 3_190_000, PendingPeak: 2, PendingStage: "Native-Transport-Requests", Compactions: 10, BacklogBefore: 1, BacklogAfter: 11, BacklogPeak: 11,
				Flushes: 8, TableMiBBefore: 118, TableMiBAfter: 2190, DiskMiB: 2380, CoordWriteP99Micros: 2000, CoordResolution: 1000,
				SSTableSource: summary.SSTablesFromMetrics, SSTablesBefore: 5, SSTablesAfter: 9, SSTablesPeak: 11, PendingCompactions: ptr(2), PendingCompactionsPeak: ptr(6),
				CPUMillicores: 950, CPULimitMillicores: 1000, Logs: true, GCSource: summary.GCFromSystemLogs, GCPauses: 8, GCTotalMillis: 2700, GCMaxMillis: 400},
		}, Rest: &summary.ServerNode{Count: 1, Mutations: 3_213_000, Compactions: 9, BacklogBefore: 0, BacklogAfter: 0, Flushes: 9, TableMiBBefore: 119, TableMiBAfter: 2200, DiskMiB: 2390}}},
	}
	// Both writers sampled every 60 s of the 600 s window; writer 1's node queued 41 tasks
	// at 5 minutes, when the client's p99 went up.
	const start = 1_800_000_000_000
	for w, s := range sums {
		tl := &summary.ServerTimeline{FromMillis: start, IntervalMillis: 60_000}
		for i := range 10 {
			p := summary.ServerPoint{AtMillis: int64(i+1) * 60_000, Pending: int64(w + 1), Flushes: int64(i % 2), Compactions: int64(i % 3 / 2)}
			if i == 4 && w == 0 {
				p.Pending, p.GCPauses, p.GCMillis = 41, 3, 1500
			}
			tl.Points = append(tl.Points, p)
		}
		s.Server.Timeline = tl
	}
	r := run.Status.Results
	r.Server = results.MergeServer(sums)
	r.Server.Timeline = results.MergeServerTimeline(sums, start, true)
	r.Bottleneck = verdict.Judge(r, sums)
	cases := map[string]report.Format{"run-server.txt": report.Table, "run-server.json": report.JSON}
	for file, format := range cases {
		t.Run(file, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Run(&b, run, format); err != nil {
				t.Fatal(err)
			}
			reporttest.Golden(t, filepath.Join("testdata", file), b.Bytes())
		})
	}
}

// A sweep whose runs carry verdicts shows them per point.
func TestGoldenSweepVerdicts(t *testing.T) {
	sw := reporttest.Sweep("ns")
	verdicts := []cbv1.BottleneckVerdict{cbv1.BottleneckWriters, cbv1.BottleneckWriters, cbv1.BottleneckCluster, cbv1.BottleneckUnclear}
	for i := range sw.Status.Table {
		if sw.Status.Table[i].Succeeded > 0 {
			sw.Status.Table[i].Bottleneck = verdicts[i%len(verdicts)]
		}
	}
	var b bytes.Buffer
	if err := report.Sweep(&b, sw, report.Table); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, filepath.Join("testdata", "sweep-verdicts.txt"), b.Bytes())
}
