package mgmtapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/promtext"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// scrape reads the endpoint: every sample by name and its gc, keyspace and table labels, and
// the default labels of the first.
func scrape(t *testing.T, url string) (map[string]float64, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	out, first := map[string]float64{}, ""
	err = promtext.Scan(resp.Body, func(name, labels string, v float64) {
		if first == "" {
			first = labels
		}
		key := name
		for _, l := range []string{"gc", "keyspace", "table"} {
			if s := promtext.Label(labels, l); s != "" {
				key += " " + l + "=" + s
			}
		}
		out[key] = v
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, first
}

// beanCounts reads what the agent reads, G1's two GarbageCollectorMXBeans, over JMX
// (nodetool sjk mx): their collection counts.
func beanCounts(t *testing.T, node *LocalNode) (young, old int64) {
	t.Helper()
	count := func(bean string) int64 {
		out, err := node.Nodetool(context.Background(), "sjk", "mx", "-b", "java.lang:type=GarbageCollector,name="+bean, "-mg", "-f", "CollectionCount")
		lines := strings.Fields(strings.TrimSpace(out))
		if err != nil || len(lines) == 0 {
			t.Fatalf("reading %s's CollectionCount: %q, %v", bean, out, err)
		}
		n, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			t.Fatalf("%s's CollectionCount: %q", bean, out)
		}
		return n
	}
	return count("G1 Young Generation"), count("G1 Old Generation")
}

// The played metrics endpoint of node 1 of the shared cluster serves what the agent would:
// its CPU between two readings of /proc around the scrape, its G1 collections as the JVM's
// collector MXBeans count them over JMX (read on both sides of a scrape until no collection
// falls between),
// the table SSTable counts, and the agent's default labels; other paths are 404.
func TestMetricsEndpoint(t *testing.T) {
	c := cassandra.Start(t, cassandra.Options{Nodes: 2, Auth: true}) // the options other tests share
	node := &LocalNode{
		Index: 1,
		Cluster: func(log io.Writer) *localcassandra.Cluster {
			lc := localcassandra.New(log)
			lc.UsersLockHeld = true
			return lc
		},
		Username: c.Username, Password: c.Password,
	}
	defer node.Close()
	srv := httptest.NewServer(NewMetrics(node))
	defer srv.Close()
	pid := node.layout().PID(1)
	proc := &nodeproc.Process{PID: pid}

	if resp, err := http.Get(srv.URL + "/other"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %v, %v; want 404", resp, err)
	}
	before, err := proc.CPU()
	if err != nil {
		t.Fatal(err)
	}
	got, labels := scrape(t, srv.URL+"/metrics")
	after, _ := proc.CPU()
	if cpu := got["process_cpu_seconds_total"]; cpu < before.Seconds() || cpu > after.Seconds() {
		t.Errorf("process_cpu_seconds_total %v, /proc around the scrape %v..%v", cpu, before.Seconds(), after.Seconds())
	}
	rows, err := node.Query(context.Background(), "SELECT host_id, broadcast_address FROM system.local")
	if err != nil || len(rows) != 1 {
		t.Fatalf("system.local: %v, %v", rows, err)
	}
	for _, want := range []string{fmt.Sprintf(`host="%v"`, rows[0]["host_id"]), fmt.Sprintf(`instance="%v"`, rows[0]["broadcast_address"]),
		`cluster="`, `datacenter="`, `rack="`} {
		if !strings.Contains(labels, want) {
			t.Errorf("labels %q lack %s", labels, want)
		}
	}
	if n, ok := got["org_apache_cassandra_metrics_table_live_ss_table_count keyspace=system_schema table=tables"]; !ok || n < 1 {
		t.Errorf("system_schema.tables: %v SSTables (served: %v); want at least the one written at start", n, ok)
	}
	// The hints are counted from the endpoint's first answer: none yet.
	for _, name := range []string{"org_apache_cassandra_metrics_storage_total_hints", "org_apache_cassandra_metrics_hints_service_hints_succeeded_total"} {
		if n, ok := got[name]; !ok || n != 0 {
			t.Errorf("%s: %v (served: %v); want 0 at the first answer", name, n, ok)
		}
	}

	compared := false
	for try := 0; try < 10 && !compared; try++ {
		y1, f1 := beanCounts(t, node)
		got, _ = scrape(t, srv.URL+"/metrics")
		y2, f2 := beanCounts(t, node)
		if y1 != y2 || f1 != f2 {
			time.Sleep(time.Second)
			continue
		}
		compared = true
		young, old := got["jvm_gc_collection_seconds_count gc=G1 Young Generation"], got["jvm_gc_collection_seconds_count gc=G1 Old Generation"]
		if int64(young) != y1 || int64(old) != f1 {
			t.Errorf("served %v young and %v full collections; the MXBeans: %d and %d", young, old, y1, f1)
		}
		t.Logf("served %v young (%v s) and %v full collections; the MXBeans: %d and %d", young,
			got["jvm_gc_collection_seconds_sum gc=G1 Young Generation"], old, y1, f1)
	}
	if !compared {
		t.Error("the JVM collected during every scrape")
	}
}
