package writer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/capacity"
	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/verdict"
)

// debtPoll is how often the search reads the nodes while it waits for their debt.
const debtPoll = time.Second

// searcher is writer 0's capacity search: it plans each round, merges what the writers
// report of it, judges it, and after a step that missed waits for the nodes to pay back
// their debt.
type searcher struct {
	ld      *load
	store   capacityStore
	spec    cbv1.CapacitySpec
	obj     capacity.Objective
	targets []nodewatch.Target
	// round is the next round's number.
	round int
	// parts and part cut every round.
	parts int
	part  time.Duration
}

// search runs the capacity search from first, when the first step starts, and returns what
// it found. It always plans a last round of rate 0, so that the writers stop.
func (ld *load) search(ctx context.Context, store capacityStore, first time.Time) *summary.Capacity {
	spec := *ld.cfg.Spec.Capacity
	sr := &searcher{ld: ld, store: store, spec: spec, obj: objectiveOf(spec.Objective),
		targets: nodewatch.Targets(ld.conn.session, ld.conn.schema.Keyspace, ld.conn.schema.Table), parts: int(spec.Intervals)}
	sr.part = durationOf(ld.cfg.Spec.Writers.Duration) / time.Duration(sr.parts)
	s := capacity.Search{Start: *ld.cfg.Spec.Writers.Rate, Precision: float64(spec.PrecisionPercent) / 100, MaxSteps: int(spec.MaxSteps), Growth: 2}
	out := &summary.Capacity{}
	defer func() { sr.stopWriters(ctx) }()
	if err := s.Validate(); err != nil {
		out.Stop, out.Error = string(cbv1.CapacityInterrupted), err.Error()
		return out
	}
	baseline := sr.debt(ctx)
	at := first
	knees := map[int64]*cbv1.Bottleneck{}
	for {
		rate, stop, ok := s.Next()
		if !ok {
			out.Stop = string(stop)
			break
		}
		again, estimate := s.Confirming(rate), s.Estimating(rate)
		step, knee, err := sr.step(ctx, rate, at, s.Extensions(rate, int(ptrOr(spec.MaxExtensions, 0))))
		if err != nil {
			out.Stop, out.Error = string(cbv1.CapacityInterrupted), err.Error()
			break
		}
		s.Record(rate, capacity.Outcome{Met: step.Met, Achieved: step.Ops, Unsent: step.Missed})
		knees[rate] = knee
		if !step.Met {
			sr.waitDebt(ctx, baseline, &step)
		}
		out.Steps = append(out.Steps, step)
		confirm := ""
		switch {
		case again:
			confirm = " (again: the search's answer rests on this miss)"
		case estimate:
			confirm = " (what a saturated step completed)"
		}
		fmt.Fprintf(ld.cfg.Progress, "capacity: step %d at %d ops/s%s: %s\n", len(out.Steps), rate, confirm, stepLine(step))
		at = sr.ld.now().Add(startLead)
	}
	out.Ops, out.Missed = s.Low, s.High
	if k := knees[s.High]; k != nil {
		out.Knee = string(k.Verdict)
		out.KneeEvidence = firstN(k.Evidence, 3, 160)
	}
	return out
}

// step runs rate from at, as many rounds as its p99 needs to be known to p99SpreadPercent
// (up to extensions more), and judges it on all of them.
func (sr *searcher) step(ctx context.Context, rate int64, at time.Time, extensions int) (summary.Step, *cbv1.Bottleneck, error) {
	var p99s []time.Duration
	var wholes []*summary.Summary
	var merged *cbv1.Results
	var mergedOf []*summary.Summary
	st := summary.Step{Target: rate}
	for {
		// The nodes are watched over the round as over a run's window (serverwatch.go): their
		// counters, the peaks of their queues and, for a node on this machine or one whose
		// management API serves metrics, its CPU against what it may use, so that a step's
		// verdict can name a saturated node.
		sm := nodewatch.Begin(ctx, sr.ld.conn.session, sr.targets, sr.ld.cfg.Now)
		// The writers must find the plan before its start: reading the nodes took time.
		at = later(at, sr.ld.now().Add(startLead))
		r := round{Rate: rate, At: sr.ld.toCassandra(at), Parts: sr.parts, Part: sr.part}
		if err := sr.store.plan(ctx, sr.round, r); err != nil {
			sm.Stop(ctx)
			return st, nil, fmt.Errorf("planning round %d: %w", sr.round, err)
		}
		// The CPU is a rate over the round: counted from its start, not from the idle lead
		// before it, which would dilute a saturated node's by a tenth.
		sleepCtx(ctx, at.Sub(sr.ld.now()))
		sm.WindowStarts()
		length := time.Duration(sr.parts) * sr.part
		sm.Watch(ctx, sampleEvery(length))
		sleepCtx(ctx, at.Add(length).Sub(sr.ld.now()))
		got, err := sr.collect(ctx, sr.round)
		if err != nil {
			sm.Stop(ctx)
			return st, nil, err
		}
		sr.round++
		st.Runs++
		wholes = append(wholes, got.wholes...)
		p99s = append(p99s, capacity.PartP99s(got.cumulative)...)
		merged, mergedOf = sr.merge(got.wholes, sm.Stop(context.WithoutCancel(ctx)))
		spread := capacity.Spread(p99s)
		st.Spread = percent(spread)
		if spread*100 <= float64(sr.spec.P99SpreadPercent) || int(st.Runs) > extensions || ctx.Err() != nil {
			break
		}
		at = sr.ld.now().Add(startLead)
	}
	f := capacity.FiguresOf(wholes)
	st.Operations, st.Timeouts, st.Missed = f.Operations, f.Timeouts, f.Missed
	st.P99, st.P999 = f.P99.Microseconds(), f.P999.Microseconds()
	st.Ops = f.Operations * int64(time.Second) / int64(time.Duration(int(st.Runs)*sr.parts)*sr.part)
	st.Met, st.Reason = capacity.Judge(sr.obj, f)
	knee := kneeVerdict(merged, mergedOf, st)
	st.Reason = clip(st.Reason, 160)
	if knee != nil {
		st.Verdict = string(knee.Verdict)
	}
	return st, knee, nil
}

// collect waits for every writer's records of round n: its parts and the whole round.
func (sr *searcher) collect(ctx context.Context, n int) (roundRows, error) {
	want := int(sr.ld.cfg.Writers) * (sr.parts + 1)
	deadline := sr.ld.now().Add(sr.store.timeout + recordSlack)
	for {
		rows, err := sr.store.rows(ctx, n, sr.parts)
		if err == nil && rows.count >= want {
			return rows, nil
		}
		if ctx.Err() != nil || sr.ld.now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("%d of %d writers' records came in", rows.count, want)
			}
			return rows, fmt.Errorf("collecting round %d: %w", n, err)
		}
		sleepCtx(ctx, jittered(250*time.Millisecond))
	}
}

// kneeVerdict is a step's bottleneck verdict: the merged results' own for a step that met
// its objective, and for one that missed it what made it miss (verdict.JudgeMissed), also
// when its rate was reached.
func kneeVerdict(r *cbv1.Results, sums []*summary.Summary, st summary.Step) *cbv1.Bottleneck {
	switch {
	case r == nil:
		return nil
	case st.Met:
		return r.Bottleneck
	}
	return verdict.JudgeMissed(r, sums, st.Reason)
}

// merge merges the writers' summaries of a whole round, with what the nodes did over it, as a
// run's results are merged, and returns the results and the summaries merged.
func (sr *searcher) merge(whole []*summary.Summary, server *summary.Server) (*cbv1.Results, []*summary.Summary) {
	if len(whole) == 0 {
		return nil, nil
	}
	sums := make([]*summary.Summary, len(whole))
	for i, s := range whole {
		c := *s
		sums[i] = &c
	}
	if server != nil && len(server.Nodes) > 0 {
		sums[0].Server = server
	}
	return results.Merge(sums), sums
}

// snapshots reads every node; one that cannot be read is left out.
func (sr *searcher) snapshots(ctx context.Context) map[string]*nodewatch.Snapshot {
	out := map[string]*nodewatch.Snapshot{}
	for _, t := range sr.targets {
		if s, err := nodewatch.Read(ctx, sr.ld.conn.session, t, sr.ld.cfg.Now()); err == nil {
			out[t.Node] = s
		}
	}
	return out
}

// debt adds up what the nodes owe now; ok is false when a node could not be read.
func (sr *searcher) debt(ctx context.Context) capacity.Debt {
	d, _ := sr.readDebt(ctx)
	return d
}

func (sr *searcher) readDebt(ctx context.Context) (capacity.Debt, error) {
	snaps := sr.snapshots(ctx)
	if len(snaps) < len(sr.targets) {
		return capacity.Debt{}, fmt.Errorf("read %d of %d nodes", len(snaps), len(sr.targets))
	}
	var d capacity.Debt
	for _, s := range snaps {
		d.PendingCompactions += max(s.PendingCompactions, 0)
		d.HintFiles += s.HintFiles
		for _, p := range s.Pools {
			d.PoolPending += p.Pending
		}
	}
	return d, nil
}

// waitDebt waits after a step that missed until the nodes are back to baseline, and notes
// in st how long it took and what was still owed if the wait gave up.
func (sr *searcher) waitDebt(ctx context.Context, baseline capacity.Debt, st *summary.Step) {
	w := capacity.Waiter{Read: sr.readDebt, Poll: debtPoll, Limit: durationOf(sr.spec.DebtWaitLimit)}
	waited, paid := w.Wait(ctx, baseline)
	st.WaitMillis = waited.Milliseconds()
	if !paid {
		d, err := sr.readDebt(ctx)
		if err != nil {
			st.Owed = clip(err.Error(), 200)
			return
		}
		st.Owed = fmt.Sprintf("%d pending compactions (%d before), %d hint files (%d before), %d queued tasks (%d before)",
			d.PendingCompactions, baseline.PendingCompactions, d.HintFiles, baseline.HintFiles, d.PoolPending, baseline.PoolPending)
	}
}

// stopWriters plans the round that ends the search, retried: a writer that never reads it
// waits for the next round until its limit.
func (sr *searcher) stopWriters(ctx context.Context) {
	if err := sr.store.plan(context.WithoutCancel(ctx), sr.round, round{At: sr.ld.cfg.Now()}); err != nil {
		fmt.Fprintf(sr.ld.cfg.Progress, "capacity: the last round, which stops the writers, not planned: %v\n", err)
	}
}

func objectiveOf(o cbv1.CapacityObjective) capacity.Objective {
	out := capacity.Objective{P99: o.P99.Duration, TimeoutsPerMillion: ptrOr(o.TimeoutsPerMillion, 0), MaxMissedPerMillion: missedPerMillion}
	if o.P999 != nil {
		out.P999 = o.P999.Duration
	}
	return out
}

// missedPerMillion is the share of starts the writers may miss (1%) and still have measured
// the rate asked: more, and the writers, not the cluster, set the rate.
const missedPerMillion = 10000

func percent(v float64) string {
	if v > 1e6 {
		return "inf"
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func firstN(ss []string, n, width int) []string {
	var out []string
	for _, s := range ss[:min(n, len(ss))] {
		out = append(out, clip(s, width))
	}
	return out
}

func stepLine(s summary.Step) string {
	outcome := "met"
	if !s.Met {
		outcome = "missed: " + s.Reason
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ops/s, p99 %s, p99.9 %s, p99 ±%s%% over %d run(s), %s", s.Ops,
		time.Duration(s.P99)*time.Microsecond, time.Duration(s.P999)*time.Microsecond, s.Spread, s.Runs, outcome)
	if s.Verdict != "" {
		fmt.Fprintf(&b, " (bottleneck %s)", s.Verdict)
	}
	if s.WaitMillis > 0 || s.Owed != "" {
		fmt.Fprintf(&b, "; waited %s for the nodes' debt", time.Duration(s.WaitMillis)*time.Millisecond)
	}
	if s.Owed != "" {
		fmt.Fprintf(&b, ", still owed: %s", s.Owed)
	}
	return b.String()
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
