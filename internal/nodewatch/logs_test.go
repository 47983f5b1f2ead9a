package nodewatch

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseLogs(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	gc := "org.apache.cassandra.service.GCInspector"
	lines := []LogLine{
		{At: at(-5), Level: "INFO", Logger: gc, Message: "G1 Young Generation GC in 900ms.  G1 Eden Space: 1 -> 0"},
		{At: at(1), Level: "INFO", Logger: gc, Message: "G1 Young Generation GC in 250ms.  G1 Eden Space: 1 -> 0"},
		{At: at(2), Level: "WARN", Logger: gc, Message: "G1 Old Generation GC in 1200ms.  G1 Old Gen: 9 -> 8"},
		{At: at(3), Level: "INFO", Logger: "org.apache.cassandra.metrics.MessagingMetrics", Message: "MUTATION_REQ messages were dropped in last 5000 ms: 3 internal and 12 cross node. Mean internal dropped latency: 2300 ms"},
		{At: at(4), Level: "WARN", Logger: "org.apache.cassandra.db.ColumnFamilyStore", Message: "Flushing largest memtable"},
		{At: at(20), Level: "ERROR", Logger: "x", Message: "after the window"},
		{At: at(6), Level: "INFO", Logger: "org.apache.cassandra.service.CassandraDaemon", Message: "JVM Arguments: [-Xmx512M, -XX:+HeapDumpOnOutOfMemoryError, -XX:+ExitOnOutOfMemoryError]"},
	}
	got := ParseLogs(lines, at(0), at(10))
	want := Logs{Available: true, GCPauses: 2, GCTotalMillis: 1450, GCMaxMillis: 1200, DroppedInternal: 3, Warnings: 2,
		Worst: "G1 Old Generation GC in 1200ms.  G1 Old Gen: 9 -> 8"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseLogs (-want +got):\n%s", diff)
	}

	lines = append(lines, LogLine{At: at(5), Level: "ERROR", Logger: "org.apache.cassandra.utils.JVMStabilityInspector", Message: "java.lang.OutOfMemoryError: Java heap space"})
	got = ParseLogs(lines, at(0), at(10))
	if got.OutOfMemory != 1 || got.Errors != 1 || got.Worst != "java.lang.OutOfMemoryError: Java heap space" {
		t.Errorf("out of memory not the worst: %+v", got)
	}
}
