package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/summary"
)

// exposition is what the management API's metrics endpoint answers for the two families, in
// the shape of the Prometheus hotspot exports it registers (its JvmExports), with the pod
// labels it adds: G1's collectors, and ZGC's, whose Cycles are concurrent.
const exposition = `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total{pod_name="dc1-r1-sts-0",node_name="n1",} 1234.5
# HELP jvm_gc_collection_seconds Time spent in a given JVM garbage collector in seconds.
# TYPE jvm_gc_collection_seconds summary
jvm_gc_collection_seconds_count{gc="G1 Young Generation",pod_name="dc1-r1-sts-0",} 120.0
jvm_gc_collection_seconds_sum{gc="G1 Young Generation",pod_name="dc1-r1-sts-0",} 3.25
jvm_gc_collection_seconds_count{gc="G1 Old Generation",pod_name="dc1-r1-sts-0",} 1.0
jvm_gc_collection_seconds_sum{gc="G1 Old Generation",pod_name="dc1-r1-sts-0",} 0.5
jvm_gc_collection_seconds_count{gc="ZGC Cycles",pod_name="dc1-r1-sts-0",} 40.0
jvm_gc_collection_seconds_sum{gc="ZGC Cycles",pod_name="dc1-r1-sts-0",} 90.0
`

func TestParseMetrics(t *testing.T) {
	got, err := parseMetrics(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	want := jvmMetrics{cpuSeconds: 1234.5, gcPauses: 121, gcSeconds: 3.75, hasCPU: true, hasGC: true}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(jvmMetrics{})); diff != "" {
		t.Errorf("parseMetrics (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"process_cpu_seconds_total", "process_cpu_seconds_total{ 5", "process_cpu_seconds_total -1", "x}{ 1"} {
		if m, _ := parseMetrics(strings.NewReader(bad)); m.hasCPU {
			t.Errorf("%q read as CPU %v", bad, m.cpuSeconds)
		}
	}
}

// A node's endpoint read at the window's two ends gives its CPU and its stop-the-world
// collections over the window; a node whose endpoint does not answer gives nothing, within
// the scrape's bound.
func TestMetricsOverTheWindow(t *testing.T) {
	cpu, young := 100.0, 10.0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || len(r.URL.Query()["name"]) != 2 {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("process_cpu_seconds_total " + strconv.FormatFloat(cpu, 'f', -1, 64) + "\n" +
			`jvm_gc_collection_seconds_count{gc="G1 Young Generation",} ` + strconv.FormatFloat(young, 'f', -1, 64) + "\n" +
			`jvm_gc_collection_seconds_sum{gc="G1 Young Generation",} ` + strconv.FormatFloat(young/100, 'f', -1, 64) + "\n"))
	}))
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(MetricsPort)))
	if err != nil {
		t.Skipf("port %d is taken here: %v", MetricsPort, err)
	}
	srv.Listener = l
	srv.Start()
	defer srv.Close()

	ctx := context.Background()
	starts := scrapeAll(ctx, []string{"127.0.0.1", "127.0.0.9"})
	if len(starts) != 1 {
		t.Fatalf("read %d endpoints, want the one that answers: %v", len(starts), starts)
	}
	at := time.Now().Add(-2 * time.Second)
	cpu, young = 103, 14
	ends := scrapeAll(ctx, []string{"127.0.0.1"})
	local := fromMetrics(remoteStart{starts["127.0.0.1"], at}, ends["127.0.0.1"], at.Add(2*time.Second))
	if local.CPU != 3*time.Second || local.GC == nil || local.GC.Count != 4 || local.GC.TotalMicros != 40000 {
		t.Fatalf("over the window: CPU %v, GC %+v; want 3s and 4 pauses of 40 ms in all", local.CPU, local.GC)
	}
	n := Figures(&Snapshot{Version: "5.0.9"}, &Snapshot{Version: "5.0.9"}, Peaks{}, Logs{}, local)
	if n.CPUMillicores != 1500 || n.CPUCores != 0 || n.GCSource != summary.GCFromMetrics || n.GCPauses != 4 || n.GCTotalMillis != 40 {
		t.Errorf("figures %+v; want 1500m of unknown cores, 4 pauses in 40 ms from the metrics", n)
	}
}
