package report_test

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

// A node's coordinator p99 under its resolution (0 in Cassandra 5.0's millisecond table, for
// a p99 of a few hundred microseconds) reads "< 1 ms" in every output a user reads it in: the
// terminal table of `cassbench run` and `cassbench results`, and the HTML report; the JSON
// document keeps the number with its resolution beside it, as status does (kubectl describe
// shows both). The nodes above it keep their "3 ms ±500 µs", and no output shows the figure
// under its resolution as a zero of milliseconds.
// zeroMillis matches a latency of zero milliseconds ("0 ms", "0.00 ms"), not "650 ms".
var zeroMillis = regexp.MustCompile(`(^|[^0-9.,])0(\.0+)? ?ms`)

func TestACoordinatorP99UnderItsResolutionReadsBelowItInEveryOutput(t *testing.T) {
	run := reporttest.Reviewed("ns", "quiet")
	nodes := run.Status.Results.Server.Nodes
	const quiet = "10.0.0.1"
	for i := range nodes {
		if nodes[i].Node == quiet {
			nodes[i].CoordinatorWriteP99Micros = 0
		}
	}

	var text, page, doc bytes.Buffer
	if err := report.Run(&text, run, report.Table); err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(&page, "quiet", []*cbv1.BenchmarkRun{run}, nil, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	if err := report.Run(&doc, run, report.JSON); err != nil {
		t.Fatal(err)
	}

	for name, out := range map[string]string{"terminal": text.String(), "html": html.UnescapeString(page.String())} {
		var row string
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, quiet) {
				row += line + "\n"
			}
		}
		if !strings.Contains(row, "< 1 ms") {
			t.Errorf("%s output: node %s's coordinator p99 under 1 ms does not read '< 1 ms':\n%s", name, quiet, row)
		}
		if zeroMillis.MatchString(row) {
			t.Errorf("%s output shows node %s's coordinator p99 as zero:\n%s", name, quiet, row)
		}
		if !strings.Contains(out, "±") {
			t.Errorf("%s output lost the other nodes' resolutions", name)
		}
	}

	var got struct {
		Results struct {
			Server struct {
				Nodes []map[string]any `json:"nodes"`
			} `json:"server"`
		} `json:"results"`
	}
	if err := json.Unmarshal(doc.Bytes(), &got); err != nil {
		t.Fatalf("the JSON document does not decode: %v", err)
	}
	found := false
	for _, n := range got.Results.Server.Nodes {
		if n["node"] != quiet {
			continue
		}
		found = true
		if n["coordinatorWriteP99Micros"] != float64(0) || n["coordinatorLatencyResolutionMicros"] != float64(1000) {
			t.Errorf("the JSON document gives node %s coordinator p99 %v at resolution %v, want 0 beside 1000",
				quiet, n["coordinatorWriteP99Micros"], n["coordinatorLatencyResolutionMicros"])
		}
	}
	if !found {
		t.Errorf("the JSON document has no node %s: %s", quiet, doc.String())
	}
}
