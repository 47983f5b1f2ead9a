package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// etcdRequestLimit is etcd's default --max-request-bytes (1.5 MiB), which every write of an
// object must fit, status included.
const etcdRequestLimit = 3 << 19

// statusShare is the most of etcd's request limit a run's status may take at the largest
// run (1,000 writers, a 64-node datacenter): what is left is headroom for fields to come.
const statusShare = 0.40

// A run of 1,000 writers against a 64-node datacenter keeps a compact row per writer in
// status.writerReports, the merge in status.results, and every writer's raw summary in the
// ConfigMaps it owns. The apiserver (and etcd behind it, with its default request limit, as
// envtest starts it) must take the status and the ConfigMaps when every writer made the
// largest summary it can: reads and writes, failures, the schedule lag and a full timeline;
// and every summary must read back exactly as written.
func TestStatusHoldsAThousandWriters(t *testing.T) {
	const writers = 1000
	ctx := context.Background()
	ns := env.Namespace(t)
	run := builders.MakeBenchmarkRun("wide", ns).Datacenter("dc1").Writers(writers).Obj()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	full, sums, biggest := largestReports(t, writers, 64)
	stored := reportstore.ConfigMaps(run, full)
	storedBytes, rawBytes := 0, 0
	for _, cm := range stored {
		if err := env.Client.Create(ctx, cm); err != nil {
			t.Fatalf("the apiserver refused ConfigMap %s of %d reports: %v", cm.Name, len(cm.BinaryData), err)
		}
		for _, b := range cm.BinaryData {
			storedBytes += len(b)
		}
	}
	for _, r := range full {
		rawBytes += len(r.Summary)
	}
	for _, r := range full {
		run.Status.WriterReports = append(run.Status.WriterReports, reportstore.Compact(r, reportstore.Name(run.Name, r.Index)))
	}
	run.Status.Results = results.Merge(sums)
	if run.Status.Results == nil {
		t.Fatal("no merged results")
	}
	now := metav1.NewTime(time.Now())
	run.Status.StartTime, run.Status.CompletionTime = &now, &now
	if err := env.Client.Status().Update(ctx, run); err != nil {
		t.Fatalf("the apiserver refused the status of %d writers: %v", writers, err)
	}
	got := &cbv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.WriterReports) != writers {
		t.Fatalf("stored %d writer reports, want %d", len(got.Status.WriterReports), writers)
	}
	var cms corev1.ConfigMapList
	if err := env.Client.List(ctx, &cms, client.InNamespace(ns), client.MatchingLabels(reportstore.Selector(run.Name))); err != nil {
		t.Fatal(err)
	}
	back, err := reportstore.Read(got, cms.Items)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full, back, cmpopts.IgnoreFields(cbv1.WriterReport{}, "ConfigMap")); diff != "" {
		t.Errorf("reports read back from the ConfigMaps (-want +got):\n%s", diff)
	}
	obj, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	reports, _ := json.Marshal(got.Status.WriterReports)
	managed, _ := json.Marshal(got.ManagedFields)
	t.Logf("managedFields %d bytes", len(managed))
	res, _ := json.Marshal(got.Status.Results)
	t.Logf("largest summary %d bytes; %d summaries of %d bytes stored as %d bytes in %d ConfigMaps (%.0f%%)",
		biggest, writers, rawBytes, storedBytes, len(cms.Items), 100*float64(storedBytes)/float64(rawBytes))
	t.Logf("%d writers: object %d bytes (%.0f%% of etcd's %d), writerReports %d, results %d",
		writers, len(obj), 100*float64(len(obj))/etcdRequestLimit, etcdRequestLimit, len(reports), len(res))
	if float64(len(obj)) > etcdRequestLimit*statusShare {
		t.Errorf("the object of %d writers takes %d bytes, over %.0f%% of etcd's request limit", writers, len(obj), 100*statusShare)
	}
}

// largestReports makes the reports of writers that each made the largest summary it can;
// of a datacenter of nodes, the first writers report one node each. It returns the reports
// with their summaries, the summaries decoded, and the largest summary's size.
func largestReports(tb testing.TB, writers, nodes int) ([]cbv1.WriterReport, []*summary.Summary, int) {
	tb.Helper()
	// Sketches of 200,000 samples each are slow to fill: a few distinct summaries, each as
	// large as a writer makes one, stand for all writers. Nodes are shared out among writers
	// (nodewatch.Assign), so of a 64-node datacenter the first 64 writers report one node each.
	const distinct = 6
	var base [distinct]*summary.Summary
	for i := range distinct {
		base[i] = largestSummary(uint64(i), i, writers)
	}
	var full []cbv1.WriterReport
	var sums []*summary.Summary
	biggest := 0
	for i := range writers {
		s := *base[i%distinct]
		s.Index = int32(i)
		if i < nodes {
			s.Server = &summary.Server{Nodes: []summary.ServerNode{{Node: fmt.Sprintf("10.0.0.%d", i), Count: 1, Mutations: 123456789,
				Reads: 98765432, PendingPeak: 1234, PendingStage: "MutationStage", Dropped: 12345, Compactions: 12, Flushes: 34,
				TableMiBBefore: 1000, TableMiBAfter: 4000, DiskMiB: 50000, CoordWriteP99Micros: 4500, CoordReadP99Micros: 8200}},
				Timeline: &summary.ServerTimeline{FromMillis: s.Start, IntervalMillis: 5000}}
			for p := range summary.MaxServerPoints {
				s.Server.Timeline.Points = append(s.Server.Timeline.Points, summary.ServerPoint{AtMillis: int64(p+1) * 5123,
					Pending: 123456, Compactions: 12345, Flushes: 12345, GCPauses: 1234, GCMillis: 123456})
			}
			s.Server.Bound()
		}
		b, err := s.Encode()
		if err != nil {
			tb.Fatal(err)
		}
		biggest = max(biggest, len(b))
		back, err := summary.Decode(b)
		if err != nil {
			tb.Fatal(err)
		}
		sums = append(sums, back)
		full = append(full, cbv1.WriterReport{
			Index: int32(i), PodUID: "3f1c2a4e-8b7d-4c61-9a0e-5d2b7c9e1f30",
			Pod: fmt.Sprintf("wide-writer-%d-x7k2p", i), Reason: "Completed", Summary: string(b),
		})
	}
	return full, sums, biggest
}

func wideSketch(r *rand.Rand, n int) *sketch.Sketch {
	s := sketch.New()
	for range n {
		// From tens of microseconds to tens of seconds: the widest a real run produces.
		s.Add(math.Exp(r.Float64()*math.Log(5e7)) + 10)
	}
	return s
}

func largestSummary(seed uint64, index, writers int) *summary.Summary {
	r := rand.New(rand.NewPCG(seed, seed+1))
	ops := func() *summary.Ops {
		return &summary.Ops{OK: 1e9, WriteTimeout: 123456, ReadTimeout: 77, Unavailable: 9, Overloaded: 3,
			ClientTimeout: 41, Other: 2, Retries: 99999, Bytes: 1 << 40,
			Attempts: summary.Failures{WriteTimeout: 223456, ClientTimeout: 99},
			Response: wideSketch(r, 200000), Service: wideSketch(r, 200000), Failure: wideSketch(r, 20000)}
	}
	tl := &summary.Timeline{IntervalMillis: 1000}
	for i := range summary.MaxPoints {
		tl.Add(summary.Point{Ops: 1_000_000 + int64(i), Errors: int64(i % 7), P99: 4000 + int64(i)})
	}
	return &summary.Summary{Version: summary.Version, Index: int32(index), Writers: int32(writers),
		Start: 1e12, End: 1e12 + 36e5, SpanMicros: 36e8, OffsetMillis: -3, OffsetErrorMillis: 1,
		Writes: ops(), Reads: ops(), Lag: wideSketch(r, 200000), Timeline: tl,
		Schedule: &summary.Schedule{Target: 70000, Due: 252e6, Missed: 1234, Backlog: 12, Late1ms: 5678, Late10pct: 9012, DrainMicros: 123456}}
}
