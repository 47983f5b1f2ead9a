package nodewatch

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
// labels it adds: G1's collectors, and ZGC's, whose Cycles are concurrent; and the table's and
// the hints' Cassandra metrics, as the agent names and labels them.
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
# TYPE org_apache_cassandra_metrics_table_live_ss_table_count gauge
org_apache_cassandra_metrics_table_live_ss_table_count{host="h",cluster="c",datacenter="dc1",rack="r1",keyspace="system",table="local",} 3.0
org_apache_cassandra_metrics_table_live_ss_table_count{host="h",cluster="c",datacenter="dc1",rack="r1",keyspace="cassbench",table="revisions",} 17.0
org_apache_cassandra_metrics_table_pending_compactions{host="h",cluster="c",datacenter="dc1",rack="r1",keyspace="cassbench",table="revisions",} 9.0
org_apache_cassandra_metrics_table_pending_compactions{host="h",cluster="c",datacenter="dc1",rack="r1",keyspace="cassbench",table="revisions_2",} 4.0
# TYPE org_apache_cassandra_metrics_storage_total_hints gauge
org_apache_cassandra_metrics_storage_total_hints{host="h",instance="10.0.0.1",cluster="c",datacenter="dc1",rack="r1",} 4321.0
# TYPE org_apache_cassandra_metrics_hints_service_hints_succeeded_total counter
org_apache_cassandra_metrics_hints_service_hints_succeeded_total{host="h",instance="10.0.0.1",cluster="c",datacenter="dc1",rack="r1",} 4000.0
`

var benchTable = tableName{"cassbench", "revisions"}

func TestParseMetrics(t *testing.T) {
	got, err := parseMetrics(strings.NewReader(exposition), benchTable)
	if err != nil {
		t.Fatal(err)
	}
	want := jvmMetrics{cpuSeconds: 1234.5, gcPauses: 121, gcSeconds: 3.75, hasCPU: true, hasGC: true, sstables: 17, pendingCompactions: 9,
		hintsStored: 4321, hintsDelivered: 4000, hasStored: true, hasDelivered: true}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(jvmMetrics{})); diff != "" {
		t.Errorf("parseMetrics (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"process_cpu_seconds_total", "process_cpu_seconds_total{ 5", "process_cpu_seconds_total -1", "x}{ 1"} {
		if m, _ := parseMetrics(strings.NewReader(bad), benchTable); m.hasCPU {
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
		if r.URL.Path != "/metrics" || len(r.URL.Query()["name"]) != 6 {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("process_cpu_seconds_total " + strconv.FormatFloat(cpu, 'f', -1, 64) + "\n" +
			`jvm_gc_collection_seconds_count{gc="G1 Young Generation",} ` + strconv.FormatFloat(young, 'f', -1, 64) + "\n" +
			`jvm_gc_collection_seconds_sum{gc="G1 Young Generation",} ` + strconv.FormatFloat(young/100, 'f', -1, 64) + "\n" +
			`org_apache_cassandra_metrics_table_live_ss_table_count{keyspace="cassbench",table="revisions",} ` + strconv.FormatFloat(young, 'f', -1, 64) + "\n" +
			`org_apache_cassandra_metrics_table_pending_compactions{keyspace="cassbench",table="revisions",} ` + strconv.FormatFloat(young/2, 'f', -1, 64) + "\n" +
			`org_apache_cassandra_metrics_storage_total_hints{host="h",} ` + strconv.FormatFloat(young*100, 'f', -1, 64) + "\n" +
			`org_apache_cassandra_metrics_hints_service_hints_succeeded_total{host="h",} ` + strconv.FormatFloat(young*10, 'f', -1, 64) + "\n"))
	}))
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(MetricsPort)))
	if err != nil {
		t.Skipf("port %d is taken here: %v", MetricsPort, err)
	}
	srv.Listener = l
	srv.Start()
	defer srv.Close()

	ctx := context.Background()
	starts := scrapeAll(ctx, []string{"127.0.0.1", "127.0.0.9"}, benchTable)
	if len(starts) != 1 {
		t.Fatalf("read %d endpoints, want the one that answers: %v", len(starts), starts)
	}
	at := time.Now().Add(-2 * time.Second)
	cpu, young = 103, 14
	ends := scrapeAll(ctx, []string{"127.0.0.1"}, benchTable)
	local := fromMetrics(remoteStart{starts["127.0.0.1"], at}, ends["127.0.0.1"], at.Add(2*time.Second))
	if local.CPU != 3*time.Second || local.GC == nil || local.GC.Count != 4 || local.GC.TotalMicros != 40000 {
		t.Fatalf("over the window: CPU %v, GC %+v; want 3s and 4 pauses of 40 ms in all", local.CPU, local.GC)
	}
	// The sampler puts the table's SSTables and pending compactions in the snapshots.
	sm := &Sampler{targets: []Target{{Node: "127.0.0.1", Keyspace: "cassbench", Table: "revisions"}}, procs: map[string]localStart{}}
	before, after := &Snapshot{Version: "5.0.9"}, &Snapshot{Version: "5.0.9"}
	sm.tableFigures(map[string]*Snapshot{"127.0.0.1": before}, starts)
	sm.tableFigures(map[string]*Snapshot{"127.0.0.1": after}, ends)
	if !before.HintsRead || !after.HintsRead || after.HintsStored-before.HintsStored != 400 || after.HintsDelivered-before.HintsDelivered != 40 {
		t.Errorf("hints %+v then %+v; want 400 stored and 40 delivered between them", before, after)
	}
	n := Figures(before, after, *NewPeaks(), Logs{}, local)
	if n.CPUMillicores != 1500 || n.CPUCores != 0 || n.GCSource != summary.GCFromMetrics || n.GCPauses != 4 || n.GCTotalMillis != 40 {
		t.Errorf("figures %+v; want 1500m of unknown cores, 4 pauses in 40 ms from the metrics", n)
	}
	if n.SSTableSource != summary.SSTablesFromMetrics || n.SSTablesBefore != 10 || n.SSTablesAfter != 14 || n.SSTablesPeak != 14 ||
		n.PendingCompactions == nil || *n.PendingCompactions != 7 || *n.PendingCompactionsPeak != 7 {
		t.Errorf("SSTables %s %d→%d (peak %d), pending %v; want 10→14 from the metrics, 7 pending", n.SSTableSource,
			n.SSTablesBefore, n.SSTablesAfter, n.SSTablesPeak, n.PendingCompactions)
	}
}
