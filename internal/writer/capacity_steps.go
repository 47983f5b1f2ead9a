package writer

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// wholeRound is the part number of a writer's summary of a whole round, beside its parts.
const wholeRound = -1

// steps runs a capacity search's load from begin: the warm-up at writers.rate, then every
// round the plan holds, until it says stop. The fleet is never restarted: the goroutines, the
// sessions and the operation sequence run on from round to round, and only the rate changes.
// Writer 0 also runs the search (search.go). sum gets the whole search's figures, and writer
// 0's the capacity found.
func (ld *load) steps(ctx context.Context, begin time.Time, sum *summary.Summary) error {
	cfg, st, eng := ld.cfg, ld.st, ld.eng
	warmup := durationOf(cfg.Spec.Writers.Warmup)
	if warmup > 0 {
		st.enter(phaseWarmup, begin)
		eng.run(ld.paceAt(phase{Start: begin, End: begin.Add(warmup), Limit: -1}, ld.shape.rate), st.warm)
	}
	store := ld.capacityStore()
	searchCtx, stopSearch := context.WithCancel(ctx)
	defer stopSearch()
	var found chan *summary.Capacity
	if cfg.Index == 0 {
		found = make(chan *summary.Capacity, 1)
		go func() { found <- ld.search(searchCtx, store, begin.Add(warmup)) }()
	}
	st.enter(phaseMeasuring, begin.Add(warmup))
	var all phaseResult
	var writes sync.WaitGroup
	defer writes.Wait()
	limit := planWait(cfg.Spec)
	var err error
	for n := 0; !eng.stop.Load(); n++ {
		var r round
		if r, err = store.awaitPlan(ctx, n, limit); err != nil || r.Rate == 0 {
			break
		}
		res := ld.round(r, &writes, func(part int, b []byte) {
			if werr := store.writePart(ctx, n, cfg.Index, part, b); werr != nil {
				fmt.Fprintf(cfg.Progress, "writer %d/%d: capacity round %d part %d not recorded: %v\n", cfg.Index, cfg.Writers, n, part, werr)
			}
		})
		all.add(res)
	}
	writes.Wait()
	ld.summarizeWindow(sum, all)
	if found != nil {
		if err != nil {
			stopSearch()
		}
		sum.Capacity = <-found
	}
	return err
}

// round runs one round of the plan as one phase, so that the load does not pause between its
// parts; at each part's end it hands record its cumulative response-time sketch, and at the
// round's end its summary, each on a goroutine of its own.
func (ld *load) round(r round, writes *sync.WaitGroup, record func(int, []byte)) phaseResult {
	cfg, eng := ld.cfg, ld.eng
	share := Share(r.Rate, cfg.Writers, cfg.Index)
	start := ld.fromCassandra(r.At)
	end := start.Add(time.Duration(r.Parts) * r.Part)
	roundStats := newPhaseStats(ld.shape.concurrency)
	// The writer's CPU over the round, for the step's verdict: the wall time counts from the
	// round's start, not from now (the wait before it would dilute the share used).
	cpu := startCPU(ld.now)
	cpu.start = later(cpu.start, start)
	done := make(chan struct{})
	writes.Go(func() {
		for p := range r.Parts {
			select {
			case <-done:
			case <-time.After(start.Add(time.Duration(p+1) * r.Part).Sub(ld.now())):
			}
			sk := sketch.New()
			for i := range roundStats {
				for _, s := range roundStats[i] {
					s.mergeResponse(sk)
				}
			}
			if b, err := json.Marshal(sk); err == nil {
				writes.Go(func() { record(p, b) })
			}
		}
	})
	var res phaseResult
	if share > 0 {
		res = eng.run(ld.paceAt(phase{Start: start, End: end, Limit: -1}, share), roundStats)
	} else {
		sleepCtx(context.Background(), end.Sub(ld.now()))
	}
	close(done)
	whole := ld.stepSummary(roundStats, res, share)
	whole.CPU = cpu.stop()
	whole.CPU.Concurrency, whole.CPU.Rate = int32(ld.shape.concurrency), share
	if b, err := whole.Encode(); err == nil {
		writes.Go(func() { record(wholeRound, b) })
	}
	ld.st.measured.absorb(roundStats)
	return res
}

// stepSummary is what this writer measured in ps, as a summary of its own.
func (ld *load) stepSummary(ps phaseStats, res phaseResult, share int64) *summary.Summary {
	cfg := ld.cfg
	s := &summary.Summary{Version: summary.Version, Index: cfg.Index, Writers: cfg.Writers,
		OffsetMillis: ld.met.offset.Offset.Milliseconds(), OffsetErrorMillis: ld.met.offset.Error.Milliseconds()}
	ld.summarizeStats(s, ps, res)
	if share > 0 {
		s.Lag, s.Schedule = schedule(ps, res, share)
	}
	return s
}

// add extends r by a later phase's result.
func (r *phaseResult) add(later phaseResult) {
	if r.First.IsZero() {
		r.First = later.First
	}
	if later.Last.After(r.Last) {
		r.Last = later.Last
	}
	r.Due += later.Due
	r.Missed += later.Missed
	r.Backlog = later.Backlog
}

func (ld *load) capacityStore() capacityStore {
	return capacityStore{session: ld.conn.session, keyspace: ld.conn.schema.Keyspace, run: ld.cfg.RunID, now: ld.cfg.Now,
		consistency: BarrierConsistency(Replicas(ld.cfg.Spec.Schema.Replication)), timeout: ld.setupTimeout()}
}

// planWait is how long a writer waits for the next round: the longest a step and the debt
// wait after it can take, and a minute more.
func planWait(spec *cbv1.BenchmarkRunSpec) time.Duration {
	c := spec.Capacity
	step := durationOf(spec.Writers.Duration) * time.Duration(1+ptrOr(c.MaxExtensions, 0))
	return step + durationOf(c.DebtWaitLimit) + time.Minute
}

// absorb adds other's counts and sketches to ps, goroutine by goroutine.
func (ps phaseStats) absorb(other phaseStats) {
	for i := range ps {
		for k := range ps[i] {
			ps[i][k].absorb(other[i][k])
		}
	}
}

func (s *opStats) absorb(o *opStats) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.outcomes {
		s.outcomes[i] += o.outcomes[i]
		s.attempts[i] += o.attempts[i]
	}
	s.retries += o.retries
	s.bytes += o.bytes
	s.rows += o.rows
	s.misses += o.misses
	s.pages += o.pages
	s.applied += o.applied
	s.notApplied += o.notApplied
	s.response.Merge(&o.response)
	s.service.Merge(&o.service)
	s.failure.Merge(&o.failure)
	s.lag.Merge(&o.lag)
	s.late1ms += o.late1ms
	s.lateTenth += o.lateTenth
	for i := range s.hist {
		s.hist[i] += o.hist[i]
	}
	s.histSum += o.histSum
}
