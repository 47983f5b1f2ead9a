package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report/reporttest"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// rawReport is writer index's termination message: ok writes at 1 ms and slow ones at 50 ms,
// on a writer that used cpu millicores of a 1,000 limit.
func rawReport(t *testing.T, index int32, ok, slow int, cpu, throttled int64, failure string) cbv1.WriterReport {
	t.Helper()
	sk := sketch.New()
	sk.AddN(1000, uint64(ok))
	sk.AddN(50_000, uint64(slow))
	s := &summary.Summary{Version: summary.Version, Index: index, Writers: 3, Start: 1, End: 2, OffsetMillis: int64(index) - 1,
		Writes: &summary.Ops{OK: int64(ok + slow - 2), WriteTimeout: 2, Retries: 7, Response: sk},
		CPU:    &summary.WriterCPU{UsedMillicores: cpu, LimitMillicores: 1000, ThrottledPercent: throttled, SchedP99Micros: 900},
		Error:  failure}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return cbv1.WriterReport{Index: index, Pod: "w", Summary: string(b)}
}

func TestRawWriters(t *testing.T) {
	reports := []cbv1.WriterReport{
		rawReport(t, 0, 990, 10, 400, 0, ""),
		{Index: 1, Pod: "w-1"}, // no summary stored: not a row
		rawReport(t, 2, 900, 100, 990, 35, "write timeouts over the error budget"),
		{Index: 3, Summary: `{"v":2,`},
	}
	got, notes := rawWriters(reports)
	// The latency comes from a sketch at 1% relative accuracy: checked to it, then zeroed.
	wantLatency := [][4]float64{{1000, 1000, 50_000, 50_000}, {1000, 50_000, 50_000, 50_000}}
	for i := range got {
		if i >= len(wantLatency) {
			break
		}
		for j, v := range []int64{got[i].P50, got[i].P99, got[i].P999, got[i].Max} {
			if w := wantLatency[i][j]; math.Abs(float64(v)-w) > 0.01*w {
				t.Errorf("writer %d: latency %d is %d µs, want %.0f within 1%%", got[i].Index, j, v, w)
			}
		}
		got[i].P50, got[i].P99, got[i].P999, got[i].Max = 0, 0, 0, 0
	}
	want := []rawWriter{
		{Index: 0, Operations: 1000, Timeouts: 2, Retries: 7, CPUUsed: 400, CPULimit: 1000, SchedP99: 900, OffsetMillis: -1},
		{Index: 2, Operations: 1000, Timeouts: 2, Retries: 7, CPUUsed: 990, CPULimit: 1000, Throttled: 35, SchedP99: 900, OffsetMillis: 1,
			Error: "write timeouts over the error budget"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(rawWriter{})); diff != "" {
		t.Errorf("rawWriters (-want +got):\n%s", diff)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "Writer 3's report does not decode: ") {
		t.Errorf("notes %q, want writer 3's report named", notes)
	}
}

func TestRawWriterTable(t *testing.T) {
	if _, ok := rawWriterTable(nil); ok {
		t.Error("a run with no raw reports has a table of them")
	}
	tbl, ok := rawWriterTable([]cbv1.WriterReport{rawReport(t, 0, 990, 10, 400, 0, ""), rawReport(t, 1, 999, 1, 990, 35, "")})
	if !ok {
		t.Fatal("no table for two raw reports")
	}
	if len(tbl.Rows) != 2 || tbl.Rows[0].Class != "nonzero" || tbl.Rows[1].Cells[9] != "990 of 1,000" || tbl.Rows[1].Cells[10] != "35%" {
		t.Errorf("rows %+v: want two, flagged for their timeouts, with CPU and throttling", tbl.Rows)
	}
	for _, part := range []string{"the raw reports of 2 writers", "writer CPU up to 990 millicores", "throttled up to 35%"} {
		if !strings.Contains(tbl.Summary, part) {
			t.Errorf("summary %q lacks %q", tbl.Summary, part)
		}
	}
}

// The page shows the writers' own reports when the run carries them, and only then.
func TestHTMLShowsRawReports(t *testing.T) {
	run := reporttest.Reviewed("ns", "r")
	page := func() string {
		var buf bytes.Buffer
		if err := HTML(&buf, "t", []*cbv1.BenchmarkRun{run}, nil, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if strings.Contains(page(), "Writers&#39; own reports") {
		t.Error("a run without raw reports shows a table of them")
	}
	run.Status.WriterReports = []cbv1.WriterReport{rawReport(t, 0, 990, 10, 400, 0, "")}
	if p := page(); !strings.Contains(p, "Writers&#39; own reports") || !strings.Contains(p, "400 of 1,000") {
		t.Error("a run with a raw report does not show it")
	}
}
