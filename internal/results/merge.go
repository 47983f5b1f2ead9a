// Package results merges writers' summaries into a BenchmarkRun's status.results. Latency
// percentiles come from merged sketches, never from averaging each writer's percentiles.
package results

import (
	"math"
	"sort"
	"strconv"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/server"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Merge combines the summaries of the writers that reported. It returns nil when none did.
// Throughput is successful operations over the union of the writers' measured windows.
func Merge(summaries []*summary.Summary) *cbv1.Results {
	var reported []*summary.Summary
	for _, s := range summaries {
		if s != nil {
			reported = append(reported, s)
		}
	}
	if len(reported) == 0 {
		return nil
	}
	sort.Slice(reported, func(i, j int) bool { return reported[i].Index < reported[j].Index })

	start, end := reported[0].Start, reported[0].End
	writes, reads := &accumulator{}, &accumulator{}
	perWriter := make([]cbv1.WriterResult, 0, len(reported))
	for _, s := range reported {
		start, end = min(start, s.Start), max(end, s.End)
		writes.add(s.Writes)
		reads.add(s.Reads)
		perWriter = append(perWriter, writerResult(s))
	}
	window := max(end-start, 0)

	out := &cbv1.Results{
		WindowStart:     metav1.NewTime(time.UnixMilli(start).UTC()),
		WindowEnd:       metav1.NewTime(time.UnixMilli(end).UTC()),
		WindowMillis:    window,
		WritersReported: int32(len(reported)),
		Writes:          writes.result(window),
		Reads:           reads.result(window),
		PerWriter:       perWriter,
	}
	total := writes.ops
	total.AddCounts(&reads.ops)
	out.Operations = total.OK
	out.OpsPerSecond = perSecond(total.OK, window)
	out.Errors = cbv1.ErrorCounts{
		WriteTimeout:  total.WriteTimeout,
		ReadTimeout:   total.ReadTimeout,
		Unavailable:   total.Unavailable,
		Overloaded:    total.Overloaded,
		ClientTimeout: total.ClientTimeout,
		Other:         total.Other,
	}
	out.TimeoutRatio = Ratio(total.Timeouts(), total.OK+total.Failed())
	out.Retries = total.Retries
	out.Bytes = total.Bytes
	out.Fastest, out.Slowest = extremes(perWriter)
	out.Server = server.Merge(reported)
	out.Bottleneck = server.Judge(out, reported)
	return out
}

// Ratio renders n/d as a decimal string rounded to six places ("0" when d is 0).
func Ratio(n, d int64) string {
	if d <= 0 || n <= 0 {
		return "0"
	}
	r := math.Round(float64(n)/float64(d)*1e6) / 1e6
	return strconv.FormatFloat(r, 'f', -1, 64)
}

type accumulator struct {
	seen              bool
	ops               counts
	response, service *sketch.Sketch
}

// counts is a summary.Ops whose sketches are left unset: only its counters are used.
type counts = summary.Ops

func (a *accumulator) add(o *summary.Ops) {
	if o == nil {
		return
	}
	a.seen = true
	a.ops.AddCounts(o)
	a.response = mergeInto(a.response, o.Response)
	a.service = mergeInto(a.service, o.Service)
}

func mergeInto(dst, src *sketch.Sketch) *sketch.Sketch {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src.Clone()
	}
	dst.Merge(src)
	return dst
}

func (a *accumulator) result(window int64) *cbv1.OperationResults {
	if !a.seen {
		return nil
	}
	return &cbv1.OperationResults{
		Operations:   a.ops.OK,
		OpsPerSecond: perSecond(a.ops.OK, window),
		Response:     Latency(a.response),
		Service:      Latency(a.service),
	}
}

// Latency reads the reported percentiles off a sketch, in whole microseconds.
func Latency(s *sketch.Sketch) cbv1.Latency {
	if s == nil || s.Count() == 0 {
		return cbv1.Latency{}
	}
	us := func(v float64) int64 { return int64(math.Round(v)) }
	return cbv1.Latency{
		P50:  us(s.Quantile(0.50)),
		P90:  us(s.Quantile(0.90)),
		P99:  us(s.Quantile(0.99)),
		P999: us(s.Quantile(0.999)),
		Max:  us(s.Max()),
		Mean: us(s.Mean()),
	}
}

func writerResult(s *summary.Summary) cbv1.WriterResult {
	var total counts
	total.AddCounts(s.Writes)
	total.AddCounts(s.Reads)
	var p99 *sketch.Sketch
	for _, o := range []*summary.Ops{s.Writes, s.Reads} {
		if o != nil {
			p99 = mergeInto(p99, o.Response)
		}
	}
	outcome := "Succeeded"
	if s.Error != "" {
		outcome = "Failed: " + s.Error
	}
	return cbv1.WriterResult{
		Index:        s.Index,
		Operations:   total.OK,
		OpsPerSecond: perSecond(total.OK, s.End-s.Start),
		Errors:       total.Failed(),
		P99Micros:    Latency(p99).P99,
		Outcome:      outcome,
	}
}

func extremes(ws []cbv1.WriterResult) (fastest, slowest *cbv1.WriterResult) {
	for i := range ws {
		w := ws[i]
		if fastest == nil || w.OpsPerSecond > fastest.OpsPerSecond {
			fastest = &w
		}
		if slowest == nil || w.OpsPerSecond < slowest.OpsPerSecond {
			slowest = &w
		}
	}
	return fastest, slowest
}

func perSecond(n, millis int64) int64 {
	if millis <= 0 {
		return 0
	}
	return int64(math.Round(float64(n) * 1000 / float64(millis)))
}
