package controllers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// requestCounter counts the manager's API requests by verb and whether they write status.
type requestCounter struct {
	mu           sync.Mutex
	total        int
	writes       int
	statusWrites map[string]int // by run name
}

func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			c.mu.Lock()
			c.total++
			if req.Method != http.MethodGet {
				c.writes++
			}
			if req.Method == http.MethodPatch && strings.HasSuffix(req.URL.Path, "/status") && strings.Contains(req.URL.Path, "/benchmarkruns/") {
				parts := strings.Split(req.URL.Path, "/")
				c.statusWrites[parts[len(parts)-2]]++
				if os.Getenv("CASSBENCH_LOG_PATCHES") != "" && req.GetBody != nil {
					body, _ := req.GetBody()
					b, _ := io.ReadAll(body)
					fmt.Fprintf(os.Stderr, "STATUS PATCH %s: %s\n", parts[len(parts)-2], b)
				}
			}
			c.mu.Unlock()
			return rt.RoundTrip(req)
		})
	})
	return out
}

func (c *requestCounter) snapshot() (total, writes int, status map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	status = map[string]int{}
	for k, v := range c.statusWrites {
		status[k] = v
	}
	return c.total, c.writes, status
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkRunLifecycle measures what one run costs the apiserver, from creation to Succeeded
// with a 3→5 resize, tuning, setup and 4 writers, with progress updates every 500 ms while the
// writers run for about two seconds.
func BenchmarkRunLifecycle(b *testing.B) {
	ns := env.Namespace(b)
	counter := &requestCounter{statusWrites: map[string]int{}}
	startManager(b, counter.wrap(env.ServiceAccountConfig(b, ns, "cassbench-manager", "config/rbac/role.yaml")))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		dcName := fmt.Sprintf("dc%d", i)
		dc := builders.MakeDatacenter(dcName, ns).Cluster("c1").Size(3).Config(originalConfig).AllowBenchmarks("true").Obj()
		pl.Create(b, dc)
		pl.Settle(b, dc)
		gen := pl.Datacenter(b, dc).Generation
		name := fmt.Sprintf("run%d", i)
		run := builders.MakeBenchmarkRun(name, ns).Datacenter(dcName).Size(5).
			CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(4).Duration(2 * time.Second).Obj()
		pl.Create(b, run)
		pl.PassPreflight(b, run)
		pl.OperatorApplies(b, dc, gen)
		setup := pl.WaitJob(b, ns, name+"-setup")
		pl.Pods(b, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(b, summary.SetupReport{Nodes: 5})}})
		pl.FinishJob(b, setup, []int32{0}, nil)
		job := pl.WaitJob(b, ns, name+"-writer")
		pl.JobRunning(b, job, 4)
		pl.Pods(b, job, map[int32]play.PodResult{0: {Running: true}, 1: {Running: true}, 2: {Running: true}, 3: {Running: true}})
		time.Sleep(2 * time.Second)
		results := map[int32]play.PodResult{}
		for w := int32(0); w < 4; w++ {
			results[w] = play.PodResult{Message: play.WriterSummary(b, w, 4, 1000, "")}
		}
		pl.Pods(b, job, results)
		pl.FinishJob(b, job, []int32{0, 1, 2, 3}, nil)
		pl.WaitCondition(b, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, "")
	}
	b.StopTimer()
	total, writes, status := counter.snapshot()
	var statusWrites int
	for _, n := range status {
		statusWrites += n
	}
	b.ReportMetric(float64(total)/float64(b.N), "requests/run")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/run")
	b.ReportMetric(float64(statusWrites)/float64(b.N), "status-writes/run")
}

// BenchmarkManagerMemoryQueued measures the manager's heap with 500 runs queued on 20
// datacenters: one run per datacenter holds it (its datacenter never settles) and the other
// 24 wait in its queue.
func BenchmarkManagerMemoryQueued(b *testing.B) {
	const datacenters, runsPerDC = 20, 25
	for i := 0; b.Loop(); i++ {
		ns := env.Namespace(b)
		for d := 0; d < datacenters; d++ {
			dc := builders.MakeDatacenter(fmt.Sprintf("dc%d", d), ns).Cluster("c1").Size(3).Config(originalConfig).AllowBenchmarks("true").Obj()
			pl.Create(b, dc)
			pl.Settle(b, dc)
		}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		m := startManager(b, env.ServiceAccountConfig(b, ns, "cassbench-manager", "config/rbac/role.yaml"))
		for r := 0; r < runsPerDC; r++ {
			for d := 0; d < datacenters; d++ {
				run := builders.MakeBenchmarkRun(fmt.Sprintf("r%d-dc%d", r, d), ns).Datacenter(fmt.Sprintf("dc%d", d)).
					Size(4).Writers(8).Duration(time.Minute).Obj()
				pl.Create(b, run)
			}
		}
		waitAllQueued(b, ns, datacenters*(runsPerDC-1))
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MiB-heap")
		m.stop()
	}
}

// waitAllQueued waits until n runs of the namespace are Queued.
func waitAllQueued(tb testing.TB, ns string, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var list cbv1.BenchmarkRunList
		if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			tb.Fatal(err)
		}
		queued := 0
		for _, r := range list.Items {
			if r.Status.Phase == cbv1.PhaseQueued {
				queued++
			}
		}
		if queued >= n {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	tb.Fatalf("fewer than %d runs queued after 5 minutes", n)
}
