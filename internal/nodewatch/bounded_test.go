package nodewatch

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cassbench/cassbench/internal/summary"
)

// worstNode has every figure at its widest: 19-digit counts, the longest names and quotes.
func worstNode(i int) summary.ServerNode {
	big := int64(math.MaxInt64)
	return summary.ServerNode{
		Node: fmt.Sprintf("fd00:1234:5678:9abc:def0:1234:5678:%04x", i), Mutations: big, Reads: big,
		PendingPeak: big, PendingStage: "Native-Transport-Requests", BlockedPeak: big, Blocked: big, Dropped: big,
		Hints: big, Compactions: big, BacklogBefore: big, BacklogAfter: big, BacklogPeak: big, CompactionBytesLeft: big,
		Flushes: big, TableMiBBefore: big, TableMiBAfter: big, DiskMiB: big, CoordWriteP99Micros: big, CoordReadP99Micros: big, CoordResolution: big,
		CPUMillicores: big, CPUCores: math.MaxInt32, CPULimitMillicores: big, GCSource: summary.GCFromSystemLogs,
		SSTableSource: summary.SSTablesFromMetrics, SSTablesBefore: big, SSTablesAfter: big, SSTablesPeak: big,
		PendingCompactions: &big, PendingCompactionsPeak: &big,
		Logs: true, GCPauses: big, GCTotalMillis: big, GCMaxMillis: big, LogErrors: big, OutOfMemory: big,
		Worst: strings.Repeat("x", maxQuote),
	}
}

// A writer's server section stays within its budget however many nodes it watches, and what
// it cannot list still counts in the totals.
func TestServerSectionBound(t *testing.T) {
	for _, nodes := range []int{1, 4, 32} {
		var figures []summary.ServerNode
		for i := range nodes {
			figures = append(figures, worstNode(i))
		}
		s := Bounded(figures)
		b, _ := json.Marshal(s)
		listed := int32(len(s.Nodes))
		if s.Rest != nil {
			listed += s.Rest.Count
		}
		t.Logf("%d nodes: %d bytes, %d listed", nodes, len(b), len(s.Nodes))
		if len(b) > summary.MaxServerBytes || listed != int32(nodes) {
			t.Errorf("%d nodes: %d bytes (limit %d), %d accounted for", nodes, len(b), summary.MaxServerBytes, listed)
		}
	}
}
