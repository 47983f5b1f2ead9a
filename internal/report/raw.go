package report

import (
	"fmt"
	"strconv"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/numfmt"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// rawWriter is what one writer's raw report says that status.results.perWriter does not:
// its own latency tail, how its operations failed, and whether its own CPU held it back.
type rawWriter struct {
	Index int32
	// Operations the writer finished, and their response latency, in microseconds.
	Operations            int64
	P50, P99, P999, Max   int64
	Timeouts, Unavailable int64
	Retries               int64
	// CPU the writer used and its limit, in millicores (0: no limit); Throttled is the share
	// of scheduler periods its cgroup was throttled; SchedP99 the Go scheduler's p99 delay.
	CPUUsed, CPULimit, Throttled, SchedP99 int64
	OffsetMillis                           int64
	Error                                  string
}

// rawWriters decodes the raw reports a run carries (cassbench report and results read them
// from the ConfigMaps the run owns, or a results file keeps them). A report that does not
// decode is named in the notes, not dropped silently.
func rawWriters(reports []cbv1.WriterReport) ([]rawWriter, []string) {
	var out []rawWriter
	var notes []string
	for _, r := range reports {
		if r.Summary == "" {
			continue
		}
		s, err := summary.Decode([]byte(r.Summary))
		if err != nil {
			notes = append(notes, fmt.Sprintf("Writer %d's report does not decode: %v.", r.Index, err))
			continue
		}
		out = append(out, rawWriterOf(r.Index, s))
	}
	return out, notes
}

func rawWriterOf(index int32, s *summary.Summary) rawWriter {
	w := rawWriter{Index: index, OffsetMillis: s.OffsetMillis, Error: s.Error}
	for _, o := range s.AllOps() {
		w.Operations += o.Operations()
		w.Timeouts += o.Timeouts()
		w.Unavailable += o.Unavailable
		w.Retries += o.Retries
	}
	if sk := responseOf(s); sk != nil && sk.Count() > 0 {
		w.P50, w.P99, w.P999 = int64(sk.Quantile(0.5)+0.5), int64(sk.Quantile(0.99)+0.5), int64(sk.Quantile(0.999)+0.5)
		w.Max = int64(sk.Max() + 0.5)
	}
	if c := s.CPU; c != nil {
		w.CPUUsed, w.CPULimit, w.Throttled, w.SchedP99 = c.UsedMillicores, c.LimitMillicores, c.ThrottledPercent, c.SchedP99Micros
	}
	return w
}

// responseOf merges the response latency of every operation the writer made, as its p99 in
// status.results.perWriter is.
func responseOf(s *summary.Summary) *sketch.Sketch {
	var out *sketch.Sketch
	for _, o := range s.AllOps() {
		if o.Response == nil {
			continue
		}
		if out == nil {
			out = sketch.New()
		}
		out.Merge(o.Response)
	}
	return out
}

// rawWriterTable lists every writer's raw report: the tail of its own latency, its
// timeouts, and its CPU, which tell a slow node's writers and a starved writer apart.
func rawWriterTable(reports []cbv1.WriterReport) (htmlTable, bool) {
	t := htmlTable{ID: "writer-reports", Caption: "Writers' own reports",
		Head: []string{"writer", "operations", "p50 (ms)", "p99 (ms)", "p99.9 (ms)", "max (ms)", "timeouts", "unavailable", "retries",
			"CPU (millicores)", "throttled", "scheduler p99", "clock offset (ms)", "error"},
		ColClass: map[int]string{10: "nowrap", 13: "text"}}
	ws, notes := rawWriters(reports)
	t.Notes = notes
	if len(ws) == 0 {
		return t, len(notes) > 0
	}
	worst := ws[0]
	for _, w := range ws {
		class := ""
		if w.Error != "" || w.Timeouts > 0 || w.Unavailable > 0 || w.Throttled > 0 {
			class = "nonzero"
		}
		cpu := numfmt.Count(w.CPUUsed)
		if w.CPULimit > 0 {
			cpu += " of " + numfmt.Count(w.CPULimit)
		}
		t.add(class, strconv.Itoa(int(w.Index)), numfmt.Count(w.Operations), msCell(w.P50), msCell(w.P99), msCell(w.P999), msCell(w.Max),
			numfmt.Count(w.Timeouts), numfmt.Count(w.Unavailable), numfmt.Count(w.Retries), cpu, strconv.FormatInt(w.Throttled, 10)+"%",
			Micros(w.SchedP99), strconv.FormatInt(w.OffsetMillis, 10), orDash(w.Error))
		worst.P999, worst.Max = max(worst.P999, w.P999), max(worst.Max, w.Max)
		worst.CPUUsed, worst.Throttled, worst.SchedP99 = max(worst.CPUUsed, w.CPUUsed), max(worst.Throttled, w.Throttled), max(worst.SchedP99, w.SchedP99)
	}
	t.Summary = fmt.Sprintf("the raw reports of %d writers: p99.9 up to %s ms, max %s ms; writer CPU up to %s millicores, throttled up to %d%%, scheduler p99 up to %s",
		len(ws), msCell(worst.P999), msCell(worst.Max), numfmt.Count(worst.CPUUsed), worst.Throttled, Micros(worst.SchedP99))
	t.Notes = append(t.Notes, "Read from the writers' raw reports, which the run keeps in the ConfigMaps it owns.")
	return t, true
}
