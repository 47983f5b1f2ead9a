package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// BenchmarkRunWriters measures how the controller's cost grows with the number of writers:
// one run from creation to Succeeded at 10, 100 and 1,000 writers, every writer reporting a
// summary of the largest size (with a 64-node datacenter's server figures). It reports the
// manager's API requests, the run's status bytes, the time to read back and merge every
// stored report (what each pass of the controller does while writers finish), and the
// manager's heap once the run succeeded. Run it with -benchtime=1x: one run is one sample.
func BenchmarkRunWriters(b *testing.B) {
	for _, writers := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			full, _, _ := largestReports(b, writers, min(writers, 64))
			for i := 0; b.Loop(); i++ {
				runWriters(b, fmt.Sprintf("w%d-%d", writers, i), full)
			}
		})
	}
}

func runWriters(b *testing.B, name string, full []cbv1.WriterReport) {
	writers := int32(len(full))
	ns := env.Namespace(b)
	dc := builders.MakeDatacenter("dc1", ns).Cluster("c1").Size(3).Config(originalConfig).AllowBenchmarks("true").Obj()
	pl.Create(b, dc)
	pl.Settle(b, dc)
	counter := &requestCounter{statusWrites: map[string]int{}}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	m := startManager(b, counter.wrap(env.ServiceAccountConfig(b, ns, "cassbench-manager", "config/rbac/role.yaml")))
	defer m.stop()
	run := builders.MakeBenchmarkRun(name, ns).Datacenter("dc1").Writers(writers).Duration(time.Second).Obj()
	pl.Create(b, run)
	setup := pl.WaitJob(b, ns, name+"-setup")
	pl.Pods(b, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(b, summary.SetupReport{Nodes: 3})}})
	pl.FinishJob(b, setup, []int32{0}, nil)
	job := pl.WaitJob(b, ns, name+"-writer")
	pl.JobRunning(b, job, writers)
	results := map[int32]play.PodResult{}
	var done []int32
	for _, r := range full {
		results[r.Index] = play.PodResult{Message: r.Summary}
		done = append(done, r.Index)
	}
	pl.Pods(b, job, results)
	pl.FinishJob(b, job, done, nil)
	got := pl.WaitCondition(b, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, "")
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total, writes, status := counter.snapshot()

	if len(got.Status.WriterReports) != int(writers) || got.Status.Results.WritersReported != writers {
		b.Fatalf("%d rows, %d writers reported; want %d", len(got.Status.WriterReports), got.Status.Results.WritersReported, writers)
	}
	obj, _ := json.Marshal(got)
	st, _ := json.Marshal(got.Status)
	merge := mergeStored(b, got)
	b.ReportMetric(float64(total), "requests/run")
	b.ReportMetric(float64(writes), "writes/run")
	b.ReportMetric(float64(status[name]), "status-writes/run")
	b.ReportMetric(float64(total)/float64(writers), "requests/writer")
	b.ReportMetric(float64(len(st)), "status-bytes")
	b.ReportMetric(100*float64(len(obj))/etcdRequestLimit, "%-of-etcd-limit")
	b.ReportMetric(float64(merge.Microseconds())/1000, "merge-ms")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "MiB-heap")
}

// mergeStored reads every stored report back from the run's ConfigMaps, decodes its summary
// and merges them all, as the controller's load stage does on each pass, and returns how
// long that took; the merge must be the one in status.
func mergeStored(b *testing.B, run *cbv1.BenchmarkRun) time.Duration {
	var cms corev1.ConfigMapList
	if err := env.Client.List(context.Background(), &cms, client.InNamespace(run.Namespace), client.MatchingLabels(reportstore.Selector(run.Name))); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	stored, err := reportstore.Read(run, cms.Items)
	if err != nil {
		b.Fatal(err)
	}
	var sums []*summary.Summary
	for _, r := range stored {
		s, err := summary.Decode([]byte(r.Summary))
		if err != nil {
			b.Fatal(err)
		}
		sums = append(sums, s)
	}
	merged := results.Merge(sums)
	took := time.Since(start)
	if len(stored) != len(run.Status.WriterReports) || merged.Operations != run.Status.Results.Operations {
		b.Fatalf("read back %d reports merging to %d operations; status has %d rows and %d operations",
			len(stored), merged.Operations, len(run.Status.WriterReports), run.Status.Results.Operations)
	}
	return took
}
