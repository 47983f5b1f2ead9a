package mgmtapi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cassbench/cassbench/internal/nodewatch"
)

// MetricsPort is where the real management API's agent serves Prometheus metrics: its
// NettyMetricsHttpServer, inside the Cassandra JVM, on :9000/metrics
// (management-api-agent-common/src/main/java/io/k8ssandra/metrics/http/NettyServerHandler.java:
// any other path is 404; every family of the default registry is written, whatever the
// query asks).
const MetricsPort = 9000

// Metrics plays that endpoint for the node it fronts, a local node or a container's (the
// agent's JVM is the node's, so whatever runs beside it reads the same process and files):
// the families cassbench reads, with the names and labels the agent gives them, from the
// node's JVM as the agent would see it.
//   - process_cpu_seconds_total (prometheus simpleclient's StandardExports, registered by the
//     agent's JvmExports): the JVM's user and system time, here from /proc/PID/stat;
//   - jvm_gc_collection_seconds_count and _sum per collector (GarbageCollectorExports: the
//     GarbageCollectorMXBeans' counts and times), here from the node's gc log: G1's, Parallel's
//     and Serial's young and full pauses under their MXBeans' names (Java 17's G1 counts its
//     remark and cleanup pauses in neither bean);
//   - org_apache_cassandra_metrics_table_live_ss_table_count per keyspace and table (the
//     agent's Dropwizard exports of TableMetrics.liveSSTableCount), here the Data.db files of
//     the table's directory;
//   - org_apache_cassandra_metrics_storage_total_hints and
//     org_apache_cassandra_metrics_hints_service_hints_succeeded_total (StorageMetrics
//     TotalHints, HintsServiceMetrics HintsSucceeded), here the hint records that appeared in
//     the node's hints directory and those of the files it deleted, since the endpoint's
//     first answer rather than the JVM's start (internal/nodewatch's HintTally, which reads
//     a local node's hints the same way).
//
// Every sample carries the agent's default labels, host (the host ID), instance (the
// broadcast address), cluster, datacenter and rack (CassandraMetricsTools.DEFAULT_LABEL_NAMES),
// before its own. The table's pending compactions (the strategy's estimate) are not played:
// no file or virtual table of the node gives them. Like the agent, the endpoint answers only
// while the JVM runs (503 otherwise: the real one is then not there at all).
type Metrics struct {
	node MeteredNode

	mu     sync.Mutex
	labels string // the default labels, once read: a node keeps its host ID and address
	hints  *nodewatch.HintTally
}

// MeteredNode is a node whose agent's metrics Metrics plays: CQL on the node alone, for the
// default labels, and where its JVM's figures are.
type MeteredNode interface {
	Query(ctx context.Context, stmt string, values ...any) ([]map[string]any, error)
	JVM() JVM
}

// JVM is where a node's figures are, as the agent inside its JVM sees them.
type JVM struct {
	// PID is the JVM's process, 0 when it does not run.
	PID int
	// GCLog is the file the JVM's -Xlog:gc writes.
	GCLog string
	// Data are the node's data_file_directories, which hold <keyspace>/<table>-<id>/.
	Data []string
	// Hints is the node's hints_directory.
	Hints string
}

// NewMetrics is the metrics endpoint of node.
func NewMetrics(node MeteredNode) *Metrics { return &Metrics{node: node} }

func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var b bytes.Buffer
	if err := m.write(r.Context(), &b); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	// The content type of simpleclient's TextFormat 0.0.4, which the agent chooses for a
	// client that asks for no other.
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func (m *Metrics) write(ctx context.Context, b *bytes.Buffer) error {
	jvm := m.node.JVM()
	if jvm.PID == 0 {
		return errors.New("the node's JVM is not running")
	}
	labels, err := m.defaultLabels(ctx)
	if err != nil {
		return err
	}
	cpu, err := processCPUSeconds(jvm.PID)
	if err != nil {
		return err
	}
	family(b, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
	sample(b, "process_cpu_seconds_total", labels, cpu)

	if gcs, err := gcLogCollections(jvm.GCLog); err == nil && len(gcs) > 0 {
		family(b, "jvm_gc_collection_seconds", "summary", "Time spent in a given JVM garbage collector in seconds.")
		for _, g := range gcs {
			with := labels + `,gc="` + g.name + `"`
			sample(b, "jvm_gc_collection_seconds_count", with, float64(g.count))
			sample(b, "jvm_gc_collection_seconds_sum", with, g.seconds)
		}
	}
	const live = "org_apache_cassandra_metrics_table_live_ss_table_count"
	family(b, live, "gauge", "Number of SSTables on disk for this table")
	for _, t := range liveSSTables(jvm.Data...) {
		sample(b, live, labels+`,keyspace="`+t.keyspace+`",table="`+t.table+`"`, float64(t.count))
	}
	if stored, delivered, ok := m.hintCounts(jvm.Hints); ok {
		const total, succeeded = "org_apache_cassandra_metrics_storage_total_hints", "org_apache_cassandra_metrics_hints_service_hints_succeeded_total"
		family(b, total, "gauge", "Total hints")
		sample(b, total, labels, float64(stored))
		family(b, succeeded, "counter", "Hints succeeded")
		sample(b, succeeded, labels, float64(delivered))
	}
	return nil
}

// hintCounts reads the hints directory again: the hints stored and delivered since the first
// reading.
func (m *Metrics) hintCounts(dir string) (stored, delivered int64, ok bool) {
	if dir == "" {
		return 0, 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hints == nil {
		m.hints = nodewatch.NewHintTally(dir)
	}
	if !m.hints.Update() {
		return 0, 0, false
	}
	stored, delivered = m.hints.Counts()
	return stored, delivered, true
}

// defaultLabels are the agent's labels of every sample, read from system.local.
func (m *Metrics) defaultLabels(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.labels != "" {
		return m.labels, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := m.node.Query(ctx, "SELECT host_id, broadcast_address, cluster_name, data_center, rack FROM system.local")
	if err != nil || len(rows) != 1 {
		return "", fmt.Errorf("reading system.local: %d rows, %w", len(rows), err)
	}
	row := rows[0]
	m.labels = fmt.Sprintf(`host="%v",instance="%v",cluster="%v",datacenter="%v",rack="%v"`,
		row["host_id"], row["broadcast_address"], row["cluster_name"], row["data_center"], row["rack"])
	return m.labels, nil
}

func family(b *bytes.Buffer, name, kind, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
}

// sample writes one line as simpleclient's TextFormat 0.0.4 does: a comma after the last
// label, and a double in Java's Double.toString form (120.0, 3.25, 1.0E-4).
func sample(b *bytes.Buffer, name, labels string, v float64) {
	fmt.Fprintf(b, "%s{%s,} %s\n", name, labels, javaDouble(v))
}

func javaDouble(v float64) string {
	if v != 0 && (v < 1e-3 || v >= 1e7) {
		s := strconv.FormatFloat(v, 'E', -1, 64)
		mant, exp, _ := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		return mant + "E" + strings.TrimLeft(strings.TrimPrefix(exp, "+"), "0")
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// processCPUSeconds is a process's user and system time (/proc/PID/stat, clock ticks of
// 1/100 s), as OperatingSystemMXBean.getProcessCpuTime gives the agent.
func processCPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	return float64(utime+stime) / 100, nil
}

// collector is one GarbageCollectorMXBean's count and time.
type collector struct {
	name    string
	count   int64
	seconds float64
}

var (
	gcUsing = regexp.MustCompile(`\bUsing (G1|Parallel|Serial)\b`)
	gcPause = regexp.MustCompile(`\bGC\(\d+\) Pause (Young|Full)\b.* ([\d.]+)ms$`)
	// beans names the young and full collectors' MXBeans of each collector.
	beans = map[string][2]string{
		"G1":       {"G1 Young Generation", "G1 Old Generation"},
		"Parallel": {"PS Scavenge", "PS MarkSweep"},
		"Serial":   {"Copy", "MarkSweepCompact"},
	}
)

// gcLogCollections reads a JVM's -Xlog:gc file (from its start: the JVM rotates an existing
// file away when it starts) into its collectors' counts and times; none for a collector this
// reader does not know.
func gcLogCollections(path string) ([]collector, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var names [2]string
	var out [2]collector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := gcUsing.FindStringSubmatch(line); m != nil {
			names = beans[m[1]]
			continue
		}
		m := gcPause.FindStringSubmatch(line)
		if m == nil || names[0] == "" {
			continue
		}
		ms, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		i := 0
		if m[1] == "Full" {
			i = 1
		}
		out[i].count++
		out[i].seconds += ms / 1000
	}
	if names[0] == "" {
		return nil, sc.Err()
	}
	out[0].name, out[1].name = names[0], names[1]
	return out[:], sc.Err()
}

// tableSSTables is one table's live SSTables.
type tableSSTables struct {
	keyspace, table string
	count           int64
}

// liveSSTables counts the Data.db files of every table under the data directories
// (<keyspace>/<table>-<id>/), sorted by keyspace and table. A dropped table's directory
// (another id) keeps no live Data.db, so the counts of one name add up, as do a table's
// directories on several data directories.
func liveSSTables(dirs ...string) []tableSSTables {
	counts := map[[2]string]int64{}
	for _, data := range dirs {
		keyspaces, _ := os.ReadDir(data)
		for _, ks := range keyspaces {
			tables, _ := os.ReadDir(filepath.Join(data, ks.Name()))
			for _, t := range tables {
				i := strings.LastIndexByte(t.Name(), '-')
				if !t.IsDir() || i <= 0 {
					continue
				}
				files, _ := filepath.Glob(filepath.Join(data, ks.Name(), t.Name(), "*-Data.db"))
				counts[[2]string{ks.Name(), t.Name()[:i]}] += int64(len(files))
			}
		}
	}
	var out []tableSSTables
	for k, n := range counts {
		out = append(out, tableSSTables{k[0], k[1], n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].keyspace != out[j].keyspace {
			return out[i].keyspace < out[j].keyspace
		}
		return out[i].table < out[j].table
	})
	return out
}
