package nodewatch

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cassbench/cassbench/internal/promtext"
)

// MetricsPort is where the management API of a cass-operator pod serves its Prometheus
// metrics (management-api-agent-common, NettyMetricsHttpServer on :9000/metrics, with the
// JVM's hotspot exports: process_cpu_seconds_total and jvm_gc_collection_seconds).
const MetricsPort = 9000

// metricsQuery asks the endpoint for the two families only: it filters by name prefix
// (NettyServerHandler's "name" parameter), and a node's whole exposition is megabytes.
// With them, the benchmark table's live SSTable count and its strategy's estimate of pending
// compactions (the management API's names for TableMetrics' LiveSSTableCount and
// PendingCompactions, labelled by keyspace and table).
// And the hints the node stored and delivered (hints.go).
const metricsQuery = "/metrics?name=process_cpu_seconds_total&name=jvm_gc_collection_seconds" +
	"&name=" + liveSSTablesMetric + "&name=" + pendingCompactionsMetric +
	"&name=" + totalHintsMetric + "&name=" + hintsSucceededMetric

const (
	liveSSTablesMetric       = "org_apache_cassandra_metrics_table_live_ss_table_count"
	pendingCompactionsMetric = "org_apache_cassandra_metrics_table_pending_compactions"
)

// jvmMetrics is what a node's metrics endpoint says of its process so far.
type jvmMetrics struct {
	cpuSeconds          float64
	gcPauses, gcSeconds float64
	hasCPU, hasGC       bool
	// sstables and pendingCompactions of the benchmark table; -1 when not served.
	sstables, pendingCompactions int64
	// hintsStored and hintsDelivered since the node started; hasHints when both were served.
	hintsStored, hintsDelivered float64
	hasStored, hasDelivered     bool
}

func (m jvmMetrics) hasHints() bool { return m.hasStored && m.hasDelivered }

// scrapeMetrics reads a node's metrics endpoint, bounded by timeout.
func scrapeMetrics(ctx context.Context, node string, table tableName, timeout time.Duration) (jvmMetrics, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(node, strconv.Itoa(MetricsPort)) + metricsQuery
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return jvmMetrics{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return jvmMetrics{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return jvmMetrics{}, fmt.Errorf("%s: %s", url, resp.Status)
	}
	m, err := parseMetrics(io.LimitReader(resp.Body, 1<<20), table)
	if err == nil && !m.hasCPU && !m.hasGC {
		err = fmt.Errorf("%s: neither process_cpu_seconds_total nor jvm_gc_collection_seconds", url)
	}
	return m, err
}

// scrapeTimeout bounds the metrics reads of all of a writer's nodes together: nodes whose
// endpoint does not answer (a cluster without the management API, a network policy) cost
// the window's start and end this much at most.
const scrapeTimeout = 2 * time.Second

// scrapeAll reads the nodes' metrics endpoints at once and returns those that answered.
func scrapeAll(ctx context.Context, nodes []string, table tableName) map[string]jvmMetrics {
	type reading struct {
		node string
		m    jvmMetrics
		err  error
	}
	got := make(chan reading, len(nodes))
	for _, n := range nodes {
		go func() {
			m, err := scrapeMetrics(ctx, n, table, scrapeTimeout)
			got <- reading{n, m, err}
		}()
	}
	out := map[string]jvmMetrics{}
	for range nodes {
		if r := <-got; r.err == nil {
			out[r.node] = r.m
		}
	}
	return out
}

// tableName is the benchmark table, as the metrics endpoint labels it.
type tableName struct{ keyspace, table string }

// parseMetrics reads the Prometheus text format for the process's CPU seconds, its
// collectors' stop-the-world collections (every collector but ZGC's and Shenandoah's
// "Cycles", which are concurrent; their "Pauses" collectors are the pauses), and the table's
// SSTables and pending compactions.
func parseMetrics(r io.Reader, table tableName) (jvmMetrics, error) {
	m := jvmMetrics{sstables: -1, pendingCompactions: -1}
	err := promtext.Scan(r, func(name, labels string, value float64) {
		switch name {
		case liveSSTablesMetric, pendingCompactionsMetric:
			if promtext.Label(labels, "keyspace") != table.keyspace || promtext.Label(labels, "table") != table.table {
				return
			}
			if name == liveSSTablesMetric {
				m.sstables = int64(value)
			} else {
				m.pendingCompactions = int64(value)
			}
		case totalHintsMetric:
			m.hintsStored, m.hasStored = value, true
		case hintsSucceededMetric:
			m.hintsDelivered, m.hasDelivered = value, true
		case "process_cpu_seconds_total":
			m.cpuSeconds, m.hasCPU = value, true
		case "jvm_gc_collection_seconds_count", "jvm_gc_collection_seconds_sum":
			if strings.HasSuffix(promtext.Label(labels, "gc"), " Cycles") {
				return
			}
			if name == "jvm_gc_collection_seconds_count" {
				m.gcPauses += value
			} else {
				m.gcSeconds += value
			}
			m.hasGC = true
		}
	})
	return m, err
}
