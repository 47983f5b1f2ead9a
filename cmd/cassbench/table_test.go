package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

func TestPrintTable(t *testing.T) {
	start := time.UnixMilli(1700000000000)
	r := &cbv1.Results{
		WindowStart: metav1.NewTime(start), WindowEnd: metav1.NewTime(start.Add(10 * time.Second)), WindowMillis: 10000,
		WritersReported: 2, Operations: 120000, OpsPerSecond: 12000,
		Writes: &cbv1.OperationResults{Operations: 100000, OpsPerSecond: 10000,
			Response: cbv1.Latency{P50: 800, P90: 1500, P99: 12500, P999: 40000, Max: 11_000_000, Mean: 950},
			Service:  cbv1.Latency{P50: 700, P90: 1400, P99: 9000, P999: 30000, Max: 900_000, Mean: 900}},
		Reads:        &cbv1.OperationResults{Operations: 20000, OpsPerSecond: 2000},
		Errors:       cbv1.ErrorCounts{WriteTimeout: 3, Unavailable: 1},
		TimeoutRatio: "0.000025", Retries: 7, Bytes: 10 << 20,
		PerWriter: []cbv1.WriterResult{{Index: 0, Operations: 60000, OpsPerSecond: 6000, Outcome: "Succeeded"}, {Index: 1, Operations: 60000, OpsPerSecond: 6000, Outcome: "Succeeded"}},
	}
	var out bytes.Buffer
	printTable(&out, "local-x", &summary.SetupReport{CassandraVersion: "5.0.9", Nodes: 3}, r)
	for _, want := range []string{
		"run local-x: Cassandra 5.0.9, 3 nodes, 2 writers reported, window 10s",
		"120000 operations, 12000 ops/s",
		"writes response", "writes service", "reads response",
		"800us", "1.50ms", "12.5ms", "11.0s",
		"write timeout 3, read timeout 0, unavailable 1",
		"timeout ratio 0.000025, retries 7, value bytes 10 MiB",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestWriteTerminationLog(t *testing.T) {
	path := t.TempDir() + "/termination-log"
	if err := writeTerminationLog(path, []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := writeTerminationLog(path, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := writeTerminationLog("", []byte(`{}`)); err != nil {
		t.Errorf("an empty path writes nothing, got %v", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != `{}` {
		t.Errorf("termination log holds %q, want the last write only", b)
	}
}
