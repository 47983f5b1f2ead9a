package writer

import (
	"context"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// measure runs the warm-up and the measured window from begin, with the timeline and the
// server's figures sampled alongside, and writes what the window measured into sum. Its
// error is the barrier between the warm-up and the window failing.
func (ld *load) measure(ctx context.Context, begin time.Time, sum *summary.Summary) error {
	w, cfg, st, eng := ld.cfg.Spec.Writers, ld.cfg, ld.st, ld.eng
	start := begin
	if warmup := durationOf(w.Warmup); warmup > 0 {
		st.enter(phaseWarmup, begin)
		eng.run(ld.paceAt(phase{Start: begin, End: begin.Add(warmup), Limit: -1}, ld.shape.rate), st.warm)
		var err error
		if start, err = ld.afterWarmup(ctx); err != nil {
			if ctx.Err() == nil {
				// The others may have met without this writer: they do not wait for its end.
				_ = ld.end(ctx)(false)
				return err
			}
			eng.stop.Store(true) // interrupted: Run says so, and no window starts
		}
	}
	for _, v := range ld.mix.verifiers {
		v.reset() // the window counts its own reads only
	}
	window := phase{Start: start, Limit: -1}
	if d := durationOf(w.Duration); d > 0 {
		window.End = window.Start.Add(d)
	}
	if w.Operations != nil {
		window.Limit = Share(*w.Operations, cfg.Writers, cfg.Index)
	}
	if w.Rate != nil && ld.shape.rate == 0 {
		// A rate below the writer count leaves this writer nothing to do.
		window.Limit = 0
	}
	var res phaseResult
	if !eng.stop.Load() {
		res = ld.window(ctx, window, sum)
	} else {
		// A writer stopped before its window still ends, so the others do not wait for it.
		_ = ld.end(ctx)(false)
	}
	ld.summarizeWindow(sum, res)
	if ld.shape.rate > 0 {
		sum.Lag, sum.Schedule = schedule(st.measured, res, ld.shape.rate)
		if !window.End.IsZero() && res.Last.After(window.End) {
			sum.Schedule.DrainMicros = res.Last.Sub(window.End).Microseconds()
		}
	}
	return nil
}

// window runs the measured window, with the timeline and the server's figures sampled
// alongside.
func (ld *load) window(ctx context.Context, window phase, sum *summary.Summary) phaseResult {
	w, st := ld.cfg.Spec.Writers, ld.st
	st.enter(phaseMeasuring, window.Start)
	if ld.cfg.Measuring != nil {
		ld.cfg.Measuring(window.Start)
	}
	smp := newSampler(st.measured, timelineInterval(durationOf(w.Duration)), ld.cfg.Now)
	stopSampling, timeline := make(chan struct{}), make(chan *summary.Timeline, 1)
	go func() { timeline <- smp.run(window.Start, stopSampling) }()
	if ld.met.nodes == nil {
		ld.met.nodes = beginWatch(ctx, ld.conn.session, ld.cfg, ld.conn.schema.Keyspace, ld.conn.schema.Table)
	}
	watching := startWatch(ctx, ld.met.nodes, window.End.Sub(window.Start), ld.cfg.Now)
	res := ld.eng.run(ld.paceAt(window, ld.shape.rate), st.measured)
	close(stopSampling)
	sum.Timeline = <-timeline
	sum.Server, sum.CPU = watching.stop(ctx, ld.shape.concurrency, ld.shape.rate, ld.end(ctx))
	ld.noteLateRead(sum.Server)
	return res
}

// paceAt makes a phase an open loop at rate, when rate is set: this writer's share of the
// window's rate, or of a capacity round's.
func (ld *load) paceAt(p phase, rate int64) phase {
	if rate <= 0 {
		return p
	}
	p.Rate = rate
	p.Poisson, p.Seed = ld.cfg.Spec.Writers.Arrivals == cbv1.ArrivalsPoisson, uint64(ld.cfg.Index)
	if t := ld.cfg.Spec.Writers.PacingTick; t != nil {
		p.Tick = t.Duration
	}
	// Evenly spaced writers are offset by a share of their interval, so that N of them do not
	// all fire in the same instant.
	p.Start = p.Start.Add(time.Second * time.Duration(ld.cfg.Index) / time.Duration(rate*int64(ld.cfg.Writers)))
	return p
}

// summarizeWindow writes what the window (or every round of a capacity search) measured into
// sum: its operations over the span from the first send to the last completion, and the
// reads' mismatches.
func (ld *load) summarizeWindow(sum *summary.Summary, res phaseResult) {
	ld.summarizeStats(sum, ld.st.measured, res)
	for _, v := range ld.mix.verifiers {
		if sum.Reads != nil {
			sum.Reads.Mismatches += v.mismatches
		}
	}
}

// summarizeStats writes the counts and sketches of ps, and the span res measured, into s.
// The span's ends are readings of the writer's clock, which is the wall clock the summary
// keeps.
func (ld *load) summarizeStats(s *summary.Summary, ps phaseStats, res phaseResult) {
	if !res.First.IsZero() {
		s.Start, s.End = res.First.UnixMilli(), res.Last.UnixMilli()
		s.SpanMicros = res.Last.Sub(res.First).Microseconds()
	}
	wl := ld.cfg.Spec.Workload
	if wl.WriteRatio > 0 || wl.ReadRatio == 0 && len(wl.Operations) == 0 {
		s.Writes = summarize(ps.kind(Write))
	}
	if wl.ReadRatio > 0 {
		s.Reads = summarize(ps.kind(Read))
	}
	for _, k := range ld.mix.kinds {
		s.Kinds = append(s.Kinds, summarizeKind(Kind(k), ps.kind(Kind(k))))
	}
}

// schedule is an open loop's lag and timetable at target operations per second.
func schedule(ps phaseStats, res phaseResult, target int64) (*sketch.Sketch, *summary.Schedule) {
	lag, late1ms, lateTenth := summarizePace(ps)
	return lag, &summary.Schedule{Target: target, Due: res.Due, Missed: res.Missed, Backlog: res.Backlog, Late1ms: late1ms, Late10pct: lateTenth}
}
