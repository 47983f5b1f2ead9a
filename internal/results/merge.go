// Package results merges writers' summaries into a BenchmarkRun's status.results. Latency
// percentiles come from merged sketches, never from averaging each writer's percentiles, and
// each carries the accuracy it was computed at.
package results

import (
	"encoding/base64"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/verdict"
)

// Merge combines the summaries of the writers that reported. It returns nil when none did or
// all failed before their first send: results need a measured window (the API requires it).
func Merge(summaries []*summary.Summary) *cbv1.Results { return MergeWith(summaries, Options{}) }

// Options are what the controller knows of the nodes and the writers cannot read.
type Options struct {
	// NodeCPULimitMillicores is each Cassandra container's CPU limit (the
	// CassandraDatacenter's spec.resources.limits.cpu), 0 when none is set: the limit of the
	// nodes read through their metrics endpoint, which gives no core count.
	NodeCPULimitMillicores int64
}

// MergeWith is Merge with what the controller knows of the nodes.
func MergeWith(summaries []*summary.Summary, o Options) *cbv1.Results {
	reported := slices.DeleteFunc(slices.Clone(summaries), func(s *summary.Summary) bool { return s == nil })
	if !slices.ContainsFunc(reported, (*summary.Summary).Measured) {
		return nil
	}
	sort.Slice(reported, func(i, j int) bool { return reported[i].Index < reported[j].Index })

	writes, reads := &accumulator{}, &accumulator{}
	kinds := &kindAccumulators{}
	lag := &accumulator{}
	var sched *summary.Schedule
	var w window
	var measured []placed
	perWriter := make([]cbv1.WriterResult, 0, len(reported))
	for _, s := range reported {
		writes.add(s.Writes)
		reads.add(s.Reads)
		kinds.add(s)
		lag.response = mergeInto(lag.response, s.Lag)
		if s.Schedule != nil {
			if sched == nil {
				sched = &summary.Schedule{}
			}
			sched.Add(s.Schedule)
		}
		if s.Measured() {
			w.add(s)
			measured = append(measured, place(s))
		}
		perWriter = append(perWriter, writerResult(s))
	}

	timeline, origin := mergedTimeline(measured)
	out := &cbv1.Results{
		WritersReported:  int32(len(reported)),
		Writes:           writes.result(),
		Reads:            reads.result(),
		OperationsByKind: kinds.results(),
		PerWriter:        perWriter,
		Timeline:         timeline,
		Sketches:         sketches(writes, reads, lag, kinds),
		Load:             mergeLoad(reported),
	}
	w.fill(out)
	fillCounts(out, writes, reads, kinds, measured, w)
	if sched != nil {
		out.Schedule = &cbv1.ScheduleResults{
			TargetOpsPerSecond: sched.Target, Due: sched.Due, Missed: sched.Missed, BacklogAtEnd: sched.Backlog,
			LateOver1ms: sched.Late1ms, LateOverTenthInterval: sched.Late10pct, DrainMillis: sched.DrainMicros / 1000,
			Lag: Latency(lag.response),
		}
	}
	out.Fastest, out.Slowest = extremes(perWriter)
	out.Server = MergeServer(reported)
	verdict.SetCPULimit(out.Server, o.NodeCPULimitMillicores)
	if out.Server != nil {
		out.Server.Timeline = MergeServerTimeline(reported, origin, timeline != nil)
	}
	out.Bottleneck = verdict.Judge(out, reported)
	out.WritePaths = writePaths(reported)
	out.Capacity = capacityOf(reported)
	addAnomaly(out, fellBackAnomaly(out.WritePaths))
	return out
}

// fillCounts sets the merged counts: operations over every kind, the rate over the common
// window and each kind's share of it, errors by kind, attempts, timeouts, retries and bytes.
func fillCounts(out *cbv1.Results, writes, reads *accumulator, kinds *kindAccumulators, measured []placed, w window) {
	total := writes.ops
	total.AddCounts(&reads.ops)
	for _, k := range kinds.order {
		total.AddCounts(&kinds.byKind[k].ops)
	}
	out.Operations = total.OK
	throughput(out, measured, w)
	for _, o := range []*cbv1.OperationResults{out.Writes, out.Reads} {
		if o != nil {
			o.OpsPerSecond = share(out.OpsPerSecond, o.Operations, out.Operations)
		}
	}
	for i := range out.OperationsByKind {
		k := &out.OperationsByKind[i]
		k.OpsPerSecond = share(out.OpsPerSecond, k.Operations, out.Operations)
	}
	out.Errors = errorCounts(total.Final())
	out.AttemptErrors = errorCounts(total.Attempts)
	out.Attempts = total.Operations() + total.Retries
	out.TimeoutsPerOperation = Ratio(total.Timeouts(), total.Operations())
	out.TimeoutsPerAttempt = Ratio(total.Attempts.Timeouts(), out.Attempts)
	out.Retries = total.Retries
	out.Bytes = total.Bytes
}

// window is the part of the run every measuring writer measured, on Cassandra's clock.
type window struct {
	seen                  bool
	start, end            int64 // the intersection
	firstStart, lastStart int64
	maxOffset             int64
	unionStart, unionEnd  int64
}

func (w *window) add(s *summary.Summary) {
	start, end := s.Start-s.OffsetMillis, s.End-s.OffsetMillis
	if !w.seen {
		w.seen = true
		w.start, w.end, w.firstStart, w.lastStart, w.unionStart, w.unionEnd = start, end, start, start, start, end
	}
	w.start, w.end = max(w.start, start), min(w.end, end)
	w.firstStart, w.lastStart = min(w.firstStart, start), max(w.lastStart, start)
	w.unionStart, w.unionEnd = min(w.unionStart, start), max(w.unionEnd, end)
	w.maxOffset = max(w.maxOffset, abs(s.OffsetMillis))
}

// bounds is the window every measuring writer measured, or, when they did not overlap at
// all, the whole stretch from the first start to the last end.
func (w *window) bounds() (start, end int64) {
	if w.end <= w.start {
		return w.unionStart, w.unionEnd
	}
	return w.start, w.end
}

// throughput is the completions inside the window every writer measured, over that window:
// a writer that ran before or after the others adds what it did in the common window only,
// and what it did outside is counted apart.
func throughput(out *cbv1.Results, measured []placed, w window) {
	if !w.seen {
		return
	}
	start, end := w.bounds()
	var inside float64
	var all int64
	for _, p := range measured {
		inside += p.inWindow(start, end)
		all += p.ok
	}
	if end > start {
		out.OpsPerSecond = int64(math.Round(inside * 1000 / float64(end-start)))
	}
	out.OperationsOutsideWindow = max(all-int64(math.Round(inside)), 0)
}

// share is total's part n of of: a kind's throughput is its share of the operations in the
// window, so that the kinds add up to the run's.
func share(total, n, of int64) int64 {
	if of <= 0 {
		return 0
	}
	return int64(math.Round(float64(total) * float64(n) / float64(of)))
}

func (w *window) fill(out *cbv1.Results) {
	if !w.seen {
		return
	}
	start, end := w.bounds()
	out.WindowStart = metav1.NewTime(time.UnixMilli(start).UTC())
	out.WindowEnd = metav1.NewTime(time.UnixMilli(end).UTC())
	out.WindowMillis = end - start
	out.StartSpreadMillis = w.lastStart - w.firstStart
	out.MaxClockOffsetMillis = w.maxOffset
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// span is a writer's measured window: monotonic when it reported one.
func span(s *summary.Summary) time.Duration {
	if s.SpanMicros > 0 {
		return time.Duration(s.SpanMicros) * time.Microsecond
	}
	return time.Duration(s.End-s.Start) * time.Millisecond
}

func ok(s *summary.Summary) int64 {
	var n int64
	for _, o := range s.AllOps() {
		n += o.OK
	}
	return n
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
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
	seen                       bool
	ops                        summary.Ops // counters only
	response, service, failure *sketch.Sketch
}

func (a *accumulator) add(o *summary.Ops) {
	if o == nil {
		return
	}
	a.seen = true
	a.ops.AddCounts(o)
	a.response = mergeInto(a.response, o.Response)
	a.service = mergeInto(a.service, o.Service)
	a.failure = mergeInto(a.failure, o.Failure)
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

func (a *accumulator) result() *cbv1.OperationResults {
	if !a.seen {
		return nil
	}
	out := &cbv1.OperationResults{
		Operations: a.ops.OK,
		Failed:     a.ops.Failed(),
		Response:   Latency(a.response),
		Service:    Latency(a.service),
		Rows:       a.ops.Rows,
		Misses:     a.ops.Misses,
		Mismatches: a.ops.Mismatches,
	}
	if a.failure != nil && a.failure.Count() > 0 {
		f := Latency(a.failure)
		out.Failure = &f
	}
	if a.ops.Rows > 0 || a.ops.Misses > 0 {
		out.MissRatio = Ratio(a.ops.Misses, a.ops.OK)
	}
	return out
}

// Latency reads the reported percentiles off a sketch, in whole microseconds, with the
// accuracy they hold and the ones that are only upper bounds.
func Latency(s *sketch.Sketch) cbv1.Latency {
	if s == nil || s.Count() == 0 {
		return cbv1.Latency{}
	}
	us := func(v float64) int64 { return int64(math.Round(v)) }
	out := cbv1.Latency{Max: us(s.Max()), Mean: us(s.Mean()), RelativeAccuracy: accuracy(s)}
	for _, p := range []struct {
		q    float64
		name string
		dst  *int64
	}{{0.50, "p50", &out.P50}, {0.90, "p90", &out.P90}, {0.99, "p99", &out.P99}, {0.999, "p999", &out.P999}} {
		v, bound := s.QuantileBound(p.q)
		*p.dst = us(v)
		if bound {
			out.UpperBounds = append(out.UpperBounds, p.name)
		}
	}
	return out
}

func accuracy(s *sketch.Sketch) string {
	return strconv.FormatFloat(math.Round(s.RelativeAccuracy()*1e4)/1e4, 'f', -1, 64)
}

func errorCounts(f summary.Failures) cbv1.ErrorCounts {
	return cbv1.ErrorCounts{WriteTimeout: f.WriteTimeout, ReadTimeout: f.ReadTimeout, Unavailable: f.Unavailable,
		Overloaded: f.Overloaded, ClientTimeout: f.ClientTimeout, Other: f.Other}
}

// mergedTimeline is the writers' timelines on Cassandra's clock, from the first writer's
// first send, and that origin; the writers that sent no timeline are named. Every point's
// rate is its operations over the time it covers: the last, partial one covers from its
// start to the last writer's last completion, where the timeline ends.
func mergedTimeline(ps []placed) (*cbv1.Timeline, int64) {
	t, origin, missing := alignTimelines(ps)
	if t == nil || len(t.Points) == 0 {
		return nil, 0
	}
	end := origin
	for _, p := range ps {
		if p.timeline != nil && p.timeline.IntervalMillis > 0 && len(p.timeline.Points) > 0 {
			end = max(end, p.end)
		}
	}
	out := &cbv1.Timeline{IntervalMillis: t.IntervalMillis}
	if len(missing) > 0 {
		out.WritersMissing = int32(len(missing))
		out.FirstWritersMissing = missing[:min(len(missing), maxMissingNamed)]
	}
	for i, p := range t.Points {
		offset := int64(i) * t.IntervalMillis
		length := t.IntervalMillis
		if i == len(t.Points)-1 {
			// At least a millisecond: a timeline of no length still has a rate.
			length = max(1, min(length, end-origin-offset))
		}
		out.Points = append(out.Points, cbv1.TimelinePoint{
			OffsetMillis: offset, Operations: p.Ops, Errors: p.Errors, P99Micros: p.P99,
			OpsPerSecond: int64(math.Round(rate(p.Ops, time.Duration(length)*time.Millisecond))),
		})
	}
	return out, origin
}

// maxMissingNamed bounds the writers a timeline names as missing.
const maxMissingNamed = 16

func sketches(writes, reads, lag *accumulator, kinds *kindAccumulators) *cbv1.ResultSketches {
	out := &cbv1.ResultSketches{
		WritesResponse: Encode(writes.response), WritesService: Encode(writes.service),
		ReadsResponse: Encode(reads.response), ReadsService: Encode(reads.service), Lag: Encode(lag.response),
		Kinds: kinds.sketches(),
	}
	if out.WritesResponse == "" && out.WritesService == "" && out.ReadsResponse == "" && out.ReadsService == "" &&
		out.Lag == "" && out.Kinds == nil {
		return nil
	}
	return out
}

// Encode renders a sketch as status keeps it; "" for none.
func Encode(s *sketch.Sketch) string {
	if s == nil || s.Count() == 0 {
		return ""
	}
	b, _ := s.MarshalBinary()
	return base64.StdEncoding.EncodeToString(b)
}

// Decode reads what Encode wrote; nil for "".
func Decode(str string) (*sketch.Sketch, error) {
	if str == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(str)
	if err != nil {
		return nil, err
	}
	s := sketch.New()
	return s, s.UnmarshalBinary(b)
}

func writerResult(s *summary.Summary) cbv1.WriterResult {
	var total summary.Ops
	var p99 *sketch.Sketch
	for _, o := range s.AllOps() {
		total.AddCounts(o)
		p99 = mergeInto(p99, o.Response)
	}
	outcome := "Succeeded"
	if s.Error != "" {
		outcome = "Failed: " + s.Error
	}
	out := cbv1.WriterResult{
		Index:             s.Index,
		Operations:        total.OK,
		Errors:            total.Failed(),
		P99Micros:         Latency(p99).P99,
		ClockOffsetMillis: s.OffsetMillis,
		Outcome:           outcome,
	}
	if s.Measured() {
		out.OpsPerSecond = int64(math.Round(rate(total.OK, span(s))))
	}
	return out
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

// ResponseSketch is the response latency sketch a run's headline percentiles come from: its
// writes', or its reads' when it made no writes, or its first kind of workload.operations'
// when it made neither; nil when the results kept no sketch.
func ResponseSketch(r *cbv1.Results) (*sketch.Sketch, error) {
	if r == nil || r.Sketches == nil {
		return nil, nil
	}
	enc := r.Sketches.WritesResponse
	if enc == "" || (r.Writes == nil || r.Writes.Operations == 0) && r.Reads != nil {
		enc = r.Sketches.ReadsResponse
	}
	if enc == "" && len(r.Sketches.Kinds) > 0 {
		enc = r.Sketches.Kinds[0].Response
	}
	return Decode(enc)
}
