package report

import (
	"bytes"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A coordinator p99 under its resolution (0 in a 5.0 node's millisecond table) reads "< 1 ms"
// in the terminal table and the HTML table, never 0; a figure no source reached says why in
// both.
func TestBelowResolutionAndNotAvailable(t *testing.T) {
	r := &cbv1.Results{Server: &cbv1.ServerResults{NodesRead: 2, Nodes: []cbv1.NodeServerResults{
		{Node: "127.0.0.1", Mutations: 10, CoordinatorWriteP99Micros: 0, CoordinatorLatencyResolutionMicros: 1000,
			GC: &cbv1.NodeGCResults{Source: cbv1.GCSourceHSPerfData, Pauses: 4, TotalMillis: 31}},
		{Node: "127.0.0.2", Mutations: 10, CoordinatorWriteP99Micros: 2000, CoordinatorLatencyResolutionMicros: 1000,
			NotAvailable: []string{"GC: the node's JVM writes no -Xlog:gc file"}},
	}}}
	var text bytes.Buffer
	if err := Server(&text, r); err != nil {
		t.Fatal(err)
	}
	cells := nodeTable(r.Server)
	html := ""
	for _, row := range cells.Rows {
		html += strings.Join(row.Cells, " | ") + "\n"
	}
	html += strings.Join(cells.Notes, "\n")
	for name, out := range map[string]string{"terminal": text.String(), "html": html} {
		for _, want := range []string{"< 1 ms", "4 (31 ms)", "node 127.0.0.2: not available: GC: the node's JVM writes no -Xlog:gc file"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", name, want, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "127.0.0.1") && (strings.Contains(line, "0us") || strings.Contains(line, "0.00")) {
				t.Errorf("%s output shows the p99 under its resolution as zero: %s", name, line)
			}
		}
	}
}
