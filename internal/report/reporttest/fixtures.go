// Package reporttest holds a finished run and a finished sweep, with the status their
// controllers would have written, for the report package's golden files and for the tests
// that read the same objects back from an apiserver and must render them the same way.
package reporttest

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
)

var (
	windowStart = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	windowEnd   = windowStart.Add(10 * time.Minute)
)

// Run is a finished run of seed 000's composite-key table with eight writers.
func Run(namespace string) *cbv1.BenchmarkRun {
	run := &cbv1.BenchmarkRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{Name: "ip-by-city-8", Namespace: namespace},
		Spec: cbv1.BenchmarkRunSpec{
			DatacenterRef: &cbv1.DatacenterReference{Name: "dc1"},
			// Every field the CRD defaults is set, as in a stored object: the JSON document
			// carries the spec, and the cluster's must render like this one.
			Deadlines: cbv1.Deadlines{Prepare: &metav1.Duration{Duration: 30 * time.Minute}},
			Schema: cbv1.SchemaSpec{Keyspace: "ip2location", Table: cbv1.TableSpec{Profile: cbv1.ProfileIPByCity},
				DurableWrites: ptr.To(true), Replication: cbv1.Replication{Strategy: cbv1.SimpleStrategy, Factor: 1}},
			Workload: cbv1.WorkloadSpec{WriteRatio: 1, WriteConsistency: "LOCAL_ONE", ReadConsistency: "LOCAL_ONE",
				ReadPath: cbv1.ReadPartition, RowsPerPartition: 1, KeyDistribution: "uniform", BatchSize: 1, BatchType: "unlogged"},
			Writers: cbv1.WritersSpec{Replicas: 8, Concurrency: 1, Arrivals: cbv1.ArrivalsUniform, ConnectionsPerHost: 2, DriverIO: cbv1.DriverIOBatched,
				Duration: &metav1.Duration{Duration: 10 * time.Minute}, Warmup: &metav1.Duration{},
				RequestTimeout: &metav1.Duration{Duration: 10 * time.Second}, Retries: ptr.To[int32](3)},
		},
	}
	perWriter := make([]cbv1.WriterResult, 8)
	var ops int64
	for i := range perWriter {
		n := int64(1_080_000 + 37_000*i - 9_000*(i%3))
		ops += n
		perWriter[i] = cbv1.WriterResult{Index: int32(i), Operations: n, OpsPerSecond: n / 600,
			Errors: int64(i % 2), P99Micros: int64(2900 + 130*i), Outcome: "Succeeded"}
	}
	run.Status = cbv1.BenchmarkRunStatus{
		ObservedGeneration: 1,
		Phase:              cbv1.PhaseSucceeded,
		Conditions: []metav1.Condition{{Type: cbv1.ConditionSucceeded, Status: metav1.ConditionTrue, Reason: cbv1.ReasonSucceeded,
			Message:            "every writer finished and reported; results are in status.results",
			LastTransitionTime: metav1.NewTime(windowEnd.Add(time.Minute)), ObservedGeneration: 1}},
		Datacenter: &cbv1.DatacenterStatus{HeldDatacenter: cbv1.HeldDatacenter{Name: "dc1", Namespace: namespace}, Size: 6, Nodes: 6, CassandraVersion: "5.0.4"},
		Results: &cbv1.Results{
			WindowStart: metav1.NewTime(windowStart), WindowEnd: metav1.NewTime(windowEnd), WindowMillis: 600_000,
			WritersReported: 8, Operations: ops, OpsPerSecond: ops / 600,
			StartSpreadMillis: 3, MaxClockOffsetMillis: 41,
			Writes: &cbv1.OperationResults{Operations: ops, OpsPerSecond: ops / 600, Failed: 4,
				Response: cbv1.Latency{P50: 412, P90: 1190, P99: 3305, P999: 9871, Max: 2048211, Mean: 583, RelativeAccuracy: "0.01", UpperBounds: []string{"p50"}},
				Service:  cbv1.Latency{P50: 398, P90: 1102, P99: 3011, P999: 8870, Max: 2048102, Mean: 551, RelativeAccuracy: "0.01"},
				Failure:  &cbv1.Latency{P50: 2000121, P90: 2031002, P99: 2031002, P999: 2031002, Max: 2048211, Mean: 2010090, RelativeAccuracy: "0.01"}},
			Errors:               cbv1.ErrorCounts{WriteTimeout: 3, ClientTimeout: 1},
			AttemptErrors:        cbv1.ErrorCounts{WriteTimeout: 9, ClientTimeout: 3},
			Attempts:             ops + 12,
			TimeoutsPerOperation: "0.000001",
			TimeoutsPerAttempt:   "0.000001",
			Retries:              8,
			Bytes:                ops * 96,
			Fastest:              &perWriter[7],
			Slowest:              &perWriter[0],
			PerWriter:            perWriter,
			Timeline: &cbv1.Timeline{IntervalMillis: 120_000, Points: []cbv1.TimelinePoint{
				{OffsetMillis: 0, Operations: ops / 5, OpsPerSecond: ops / 600, P99Micros: 3100},
				{OffsetMillis: 120_000, Operations: ops / 5, OpsPerSecond: ops / 600, P99Micros: 3200},
				{OffsetMillis: 240_000, Operations: ops/5 - 1000, OpsPerSecond: (ops/5 - 1000) / 120, Errors: 4, P99Micros: 5300},
				{OffsetMillis: 360_000, Operations: ops / 5, OpsPerSecond: ops / 600, P99Micros: 3000},
				{OffsetMillis: 480_000, Operations: ops/5 + 1000, OpsPerSecond: (ops/5 + 1000) / 120, P99Micros: 3300},
			}},
		},
	}
	return run
}

// Sweep is a finished sweep of seed 000: writer count against partition key design, three
// repeats each; one point failed.
func Sweep(namespace string) *cbv1.BenchmarkSweep {
	name := "writers-by-key"
	sw := &cbv1.BenchmarkSweep{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkSweep"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: cbv1.BenchmarkSweepSpec{
			Template: Run(namespace).Spec,
			Axes: []cbv1.SweepAxis{
				{Path: "writers.replicas", Values: []intstr.IntOrString{intstr.FromInt32(12), intstr.FromInt32(24), intstr.FromInt32(48), intstr.FromInt32(64)}},
				{Path: "schema.table.profile", Values: []intstr.IntOrString{intstr.FromString("ip-by-country"), intstr.FromString("ip-by-city")}},
			},
			Mode:    cbv1.SweepCartesian,
			Repeats: 3,
			BestBy:  cbv1.BestByOpsPerSecond,
			Restore: cbv1.RestoreAfterEach,
		},
	}
	// Throughput (mean, min, max) and p99 (mean, min, max) per point, point order.
	figures := [][6]int64{
		{8400, 8100, 8800, 5200, 4900, 5600}, {18100, 17600, 18500, 2900, 2700, 3100},
		{9900, 9300, 10400, 9800, 9100, 10900}, {24200, 23500, 24900, 3600, 3300, 3900},
		{10800, 10100, 11600, 21000, 18800, 23900}, {28300, 27400, 29200, 5100, 4700, 5600},
		{0, 0, 0, 0, 0, 0}, {29600, 28900, 30100, 7400, 6800, 8300},
	}
	var table []cbv1.SweepPoint
	for i, f := range figures {
		row := cbv1.SweepPoint{
			Point:  int32(i),
			Values: []string{[]string{"12", "24", "48", "64"}[i/2], []string{"ip-by-country", "ip-by-city"}[i%2]},
		}
		for r := range 3 {
			row.Runs = append(row.Runs, fmt.Sprintf("%s-%d-%d", name, i, r))
		}
		if f[0] == 0 {
			row.Outcome, row.Failed = cbv1.PointFailed, 1
			row.Runs = row.Runs[:1]
			row.Message = fmt.Sprintf("BenchmarkRun %s-%d-0 failed: writer 17 exited with code 137 (OOMKilled) without a report", name, i)
			table = append(table, row)
			continue
		}
		row.Outcome, row.Succeeded = cbv1.PointSucceeded, 3
		row.OpsPerSecond, row.OpsPerSecondMin, row.OpsPerSecondMax = f[0], f[1], f[2]
		row.P50, row.P99, row.P999, row.P99Min, row.P99Max = f[3]/6, f[3], f[3]*3, f[4], f[5]
		row.Errors = int64(i * 40)
		row.TimeoutRatio = strconv.FormatFloat(float64(i*11)/1e6, 'f', -1, 64)
		table = append(table, row)
	}
	sw.Status = cbv1.BenchmarkSweepStatus{
		ObservedGeneration: 1,
		Phase:              cbv1.PhaseFailed,
		Conditions: []metav1.Condition{
			{Type: cbv1.ConditionValid, Status: metav1.ConditionTrue, Reason: cbv1.ReasonPointsValid,
				Message: "all 8 points make BenchmarkRuns the apiserver accepts", LastTransitionTime: metav1.NewTime(windowStart), ObservedGeneration: 1},
			{Type: cbv1.ConditionSucceeded, Status: metav1.ConditionFalse, Reason: cbv1.ReasonPointsFailed,
				Message:            "1 of 8 points failed (see status.table for why); the other points' results are in the table",
				LastTransitionTime: metav1.NewTime(windowEnd), ObservedGeneration: 1},
		},
		Points: 8, Completed: 8, Failed: 1,
		Progress: "8/8 done, 1 failed",
		Table:    table,
		Best: &cbv1.SweepBest{Point: 7, Values: []string{"64", "ip-by-city"}, By: cbv1.BestByOpsPerSecond,
			Summary: "writers.replicas=64, schema.table.profile=ip-by-city (29600 ops/s)"},
	}
	return sw
}

// Update rewrites golden files instead of comparing with them: go test -update.
var Update = flag.Bool("update", false, "rewrite the golden files in internal/report/testdata")

// Golden compares got with the golden file at path, or rewrites the file under -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update if the change is intended):\n%s", path, diff)
	}
}

// Measured is Run under another name with a 60-interval timeline around opsPerSecond (2%
// noise) and a merged response sketch of lognormal latencies around median microseconds:
// what a run that kept its timeline and sketches looks like, for comparisons and reports.
func Measured(namespace, name string, seed uint64, opsPerSecond, median float64) *cbv1.BenchmarkRun {
	run := Run(namespace)
	run.Name = name
	r := rand.New(rand.NewPCG(seed, seed+1))
	// The intervals' p99 wander on a source of their own, which leaves the figures drawn
	// from r as they were before the p99 varied.
	jitter := rand.New(rand.NewPCG(seed+100, seed+101))
	tl := &cbv1.Timeline{IntervalMillis: 10_000}
	for i := range 60 {
		v := int64(opsPerSecond * (1 + 0.02*r.NormFloat64()))
		tl.Points = append(tl.Points, cbv1.TimelinePoint{OffsetMillis: int64(i) * 10_000, OpsPerSecond: v, Operations: 10 * v,
			P99Micros: int64(3 * median * (1 + 0.06*jitter.NormFloat64()))})
	}
	sk := sketch.New()
	for range 50000 {
		sk.Add(median * math.Exp(0.5*r.NormFloat64()))
	}
	res := run.Status.Results
	res.Timeline, res.OpsPerSecond = tl, int64(opsPerSecond)
	res.Sketches = &cbv1.ResultSketches{WritesResponse: results.Encode(sk)}
	// The counts follow the timeline, the writers share its rate as Run's do.
	var ops int64
	for _, p := range tl.Points {
		ops += p.Operations
	}
	res.Operations, res.Writes.Operations, res.Writes.OpsPerSecond = ops, ops, res.OpsPerSecond
	var before int64
	for _, w := range res.PerWriter {
		before += w.OpsPerSecond
	}
	for i := range res.PerWriter {
		w := &res.PerWriter[i]
		w.OpsPerSecond = w.OpsPerSecond * res.OpsPerSecond / before
		w.Operations = w.OpsPerSecond * 600
	}
	// The status percentiles are the sketch's, as the merge writes them.
	q := func(p float64) int64 { return int64(math.Round(sk.Quantile(p))) }
	res.Writes.Response = cbv1.Latency{P50: q(0.5), P90: q(0.9), P99: q(0.99), P999: q(0.999), Max: q(1), Mean: int64(median * math.Exp(0.125)),
		RelativeAccuracy: res.Writes.Response.RelativeAccuracy}
	return run
}

// Reviewed is Measured with what the rest of a finished open-loop run carries: the target it
// was paced to, the server's figures from three nodes and the bottleneck verdict, so that a
// report shows every section.
func Reviewed(namespace, name string) *cbv1.BenchmarkRun {
	run := Measured(namespace, name, 3, 15800, 900)
	res := run.Status.Results
	res.Schedule = &cbv1.ScheduleResults{TargetOpsPerSecond: 16000, Due: 9_600_000, Missed: 120_000, BacklogAtEnd: 40,
		LateOver1ms: 2100, DrainMillis: 180,
		Lag: cbv1.Latency{P50: 12, P90: 40, P99: 810, P999: 2400, Max: 41000, Mean: 30, RelativeAccuracy: "0.01"}}
	node := func(addr string, mutations, pending, dropped, gcPauses int64) cbv1.NodeServerResults {
		return cbv1.NodeServerResults{Node: addr, Mutations: mutations, PendingPeak: pending, PendingStage: "MutationStage",
			Dropped: dropped, Compactions: 12, CompactionBacklogBefore: 1, CompactionBacklogAfter: 30, CompactionBacklogPeak: 33,
			Flushes: 9, TableMiBBefore: 120, TableMiBAfter: 2210, DiskMiB: 2400, CoordinatorWriteP99Micros: 3000,
			CoordinatorLatencyResolutionMicros: 1000, CPUMillicores: 3400, CPUCores: 8,
			SSTables: &cbv1.NodeSSTableResults{Source: "disk", Before: 4, After: 37, Peak: 40},
			GC:       &cbv1.NodeGCResults{Source: cbv1.GCSourceGCLog, Pauses: gcPauses, TotalMillis: 500 * gcPauses, MaxMillis: 650}}
	}
	nodes := []cbv1.NodeServerResults{
		node("10.0.0.3", 3_210_000, 41, 1204, 3), node("10.0.0.1", 3_190_000, 2, 0, 8), node("10.0.0.2", 3_213_000, 5, 0, 2)}
	total := node("", 9_613_000, 41, 1204, 13)
	total.Compactions, total.Flushes, total.DiskMiB = 36, 27, 7200
	res.Server = &cbv1.ServerResults{NodesRead: 3, Nodes: nodes, Total: total,
		Anomalies: []string{"node 10.0.0.3 dropped 1,204 messages", "node 10.0.0.3 queued up to 41 tasks in MutationStage"},
		Timeline:  serverTimeline()}
	res.Bottleneck = &cbv1.Bottleneck{Verdict: cbv1.BottleneckCluster,
		Evidence:         []string{"nodes dropped 1,204 messages", "up to 41 tasks waited in MutationStage"},
		WriterCPUPercent: 31, WriterSchedP99Micros: 180}
	return run
}

// serverTimeline is what three nodes did over Measured's 600 s window, sampled every 20 s:
// a flush every minute on each node, compactions after them, the queue building to 41 tasks
// at 7 minutes with the longest GC pauses, and 13 pauses in all, as Reviewed's totals say.
func serverTimeline() *cbv1.ServerTimeline {
	tl := &cbv1.ServerTimeline{IntervalMillis: 20_000}
	pauses := map[int]int64{5: 2, 12: 3, 20: 4, 21: 3, 27: 1}
	for i := range 30 {
		p := cbv1.ServerTimelinePoint{OffsetMillis: int64(i) * 20_000, PendingPeak: int64(2 + i%4)}
		if i%3 == 2 && i < 27 {
			p.Flushes = 3
		}
		if i%3 == 0 && i > 0 {
			p.Compactions = 4
		}
		if i >= 18 && i <= 22 {
			p.PendingPeak = []int64{12, 27, 41, 30, 9}[i-18]
		}
		p.GCPauses, p.GCMillis = pauses[i], 500*pauses[i]
		tl.Points = append(tl.Points, p)
	}
	return tl
}
