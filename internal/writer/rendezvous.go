package writer

import (
	"context"
	"fmt"
	"time"

	"github.com/cassbench/cassbench/internal/summary"
)

// meet measures this writer's clock against Cassandra's, which is the one all writers
// share, waits at the start barrier for the others, and returns the common start on this
// writer's monotonic clock, which the load is timed by.
func (ld *load) meet(ctx context.Context, sum *summary.Summary) (time.Time, error) {
	ld.measureClock(ctx, sum)
	if durationOf(ld.cfg.Spec.Writers.Warmup) == 0 {
		// Nobody sends before the common start: the nodes' counters read now are the
		// window's start, whatever the others' arrival times.
		ld.met.nodes = beginWatch(ctx, ld.conn.session, ld.cfg, ld.conn.schema.Keyspace, ld.conn.schema.Table)
	}
	begin, err := ld.barrier(ctx, ld.cfg.RunID, ld.cfg.BarrierTimeout+ld.met.loadTook)
	if err != nil {
		return time.Time{}, err
	}
	sleepCtx(ctx, begin.Sub(ld.now()))
	if ld.met.nodes != nil {
		ld.met.nodes.WindowStarts()
	}
	return begin, nil
}

// windowSuffix keys the barrier between the warm-up and the window apart from the start's.
const windowSuffix = "/window"

// afterWarmup is the quiet point between the warm-up and the window, once this writer's
// warm-up has drained (every request of it answered): a barrier every writer arrives at
// drained, so that once it is complete nobody sends until the window's start it agrees
// (startLead later). A writer that reads nodes reads them for the window's start in that
// quiet: the nodes' counters then hold every warm-up write and none of the window's, so the
// mutations over the window are the window's writes. Read while the others still sent, they
// missed the writes applied while they were read (19 of 10,000 at 500 ops/s).
func (ld *load) afterWarmup(ctx context.Context) (time.Time, error) {
	start, err := ld.barrier(ctx, ld.cfg.RunID+windowSuffix, ld.cfg.BarrierTimeout+ld.shape.timeout)
	if err != nil {
		return time.Time{}, fmt.Errorf("between the warm-up and the window: %w", err)
	}
	ld.met.nodes = beginWatch(ctx, ld.conn.session, ld.cfg, ld.conn.schema.Keyspace, ld.conn.schema.Table)
	ld.met.lateRead = ld.now().Sub(start)
	sleepCtx(ctx, start.Sub(ld.now()))
	ld.met.nodes.WindowStarts()
	return start, nil
}

// noteLateRead says in the server figures when the window's first reading ended after the
// window started (the poll that found the barrier's decision came after startLead), so the
// counters may hold some of the window's first writes.
func (ld *load) noteLateRead(srv *summary.Server) {
	if srv == nil || ld.met.lateRead <= 0 {
		return
	}
	note := fmt.Sprintf("the nodes were read for the window's start %d ms after it started", ld.met.lateRead.Milliseconds())
	if srv.Error != "" {
		note = srv.Error + "; " + note
	}
	srv.Error = note
	srv.Bound()
}

// measureClock measures this writer's clock against Cassandra's, once.
func (ld *load) measureClock(ctx context.Context, sum *summary.Summary) {
	if ld.met.measured {
		return
	}
	cfg := ld.cfg
	clock, err := measureOffset(ctx, ld.conn.session, cfg.Now, ld.setupTimeout())
	if err != nil {
		fmt.Fprintf(cfg.Progress, "writer %d/%d: not correcting for clock offset: %v\n", cfg.Index, cfg.Writers, err)
	}
	ld.met.offset, ld.met.measured = clock, true
	sum.OffsetMillis, sum.OffsetErrorMillis = clock.Offset.Round(time.Millisecond).Milliseconds(), clock.Error.Round(time.Millisecond).Milliseconds()
}

// barrier waits at the barrier run for the other writers and returns the common start on
// this writer's monotonic clock.
func (ld *load) barrier(ctx context.Context, run string, timeout time.Duration) (time.Time, error) {
	start, err := ld.barrierOf(run, timeout).Wait(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return ld.fromCassandra(start), nil
}

func (ld *load) barrierOf(run string, timeout time.Duration) Barrier {
	cfg := ld.cfg
	return Barrier{
		Session: ld.conn.session, Keyspace: ld.conn.schema.Keyspace, Run: run, Index: cfg.Index, Writers: cfg.Writers,
		Consistency: BarrierConsistency(Replicas(cfg.Spec.Schema.Replication)),
		Timeout:     timeout, RequestTimeout: ld.setupTimeout(), Now: cfg.Now, Offset: ld.met.offset.Offset,
		GiveUp: cfg.GiveUp,
	}
}

// endWaitLimit bounds the wait for one more writer's end: writers of a run by duration end
// within their drain of each other; writers by operations may be further apart, and one that
// failed never ends, so the nodes are then read without it, and the figures say so.
const endWaitLimit = time.Minute

// end records this writer's end at the end barrier and, with wait, waits for the others'.
func (ld *load) end(ctx context.Context) func(wait bool) error {
	return func(wait bool) error {
		timeout := endWaitLimit
		if t := ld.cfg.BarrierTimeout; t > 0 {
			timeout = min(t, timeout)
		}
		return ld.barrierOf(ld.cfg.RunID, timeout).End(ctx, wait)
	}
}
