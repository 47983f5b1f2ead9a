package writer

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/cassbench/cassbench/internal/summary"
)

// watch stops the engine when the error budget is spent or ctx ends. The returned function
// says why it stopped, once the load is over. Without a budget (writers.maxErrorPercent 0,
// the default) it only waits for ctx: adding up every goroutine's statistics ten times a
// second took 13% of a writer's CPU at 5,000 ops/s and 128 in flight (bench-writer's
// profile, docs/writer-efficiency.md), for a check that could never stop anything.
func watch(ctx context.Context, eng *engine, st *state, b Budget) func() error {
	var why error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if b.MaxPercent <= 0 {
			<-ctx.Done()
			eng.stop.Store(true)
			return
		}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				eng.stop.Store(true)
				return
			case <-t.C:
			}
			tot := st.totals(true)
			ops, failed, _ := sumKinds(&tot)
			if b.Exceeded(ops, failed) {
				why = budgetError(ops, failed, b, eng.lastErr.Load())
				eng.stop.Store(true)
				return
			}
		}
	}()
	return func() error {
		<-done
		return why
	}
}

// nothingSucceeded fails a writer whose every operation failed: without an error budget it
// would otherwise report success for a window of nothing but errors.
func nothingSucceeded(sum *summary.Summary, last *string) error {
	var ok, failed int64
	for _, o := range sum.AllOps() {
		ok += o.OK
		failed += o.Failed()
	}
	if ok > 0 || failed == 0 {
		return nil
	}
	msg := fmt.Sprintf("all %d operations failed", failed)
	if last != nil {
		msg += "; last error: " + *last
	}
	return fmt.Errorf("%s", msg)
}

func budgetError(ops, failed int64, b Budget, last *string) error {
	pct := math.Round(float64(failed)*1000/float64(ops)) / 10
	msg := fmt.Sprintf("error budget exceeded: %d of %d operations failed (%g%%, writers.maxErrorPercent is %d)", failed, ops, pct, b.MaxPercent)
	if last != nil {
		msg += "; last error: " + *last
	}
	return fmt.Errorf("%s", msg)
}

func report(ctx context.Context, cfg Config, st *state, window time.Duration) {
	every := cfg.ProgressEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	p := &progress{out: cfg.Progress, st: st, index: cfg.Index, writers: cfg.Writers, window: window}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.print(cfg.Now())
		}
	}
}
