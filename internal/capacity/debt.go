package capacity

import (
	"context"
	"time"
)

// Debt is what a node still owes after load: compactions pending, hints waiting for other
// nodes, and tasks queued in its thread pools. Summed over the nodes.
type Debt struct {
	PendingCompactions, HintFiles, PoolPending int64
}

// compactionSlack is the pending compactions above the baseline still taken as paid: a table
// being written always has a compaction or so in view, which need not finish for the next
// step to measure what it should.
const compactionSlack = 1

// PaidBack says whether now is back to where baseline was.
func PaidBack(baseline, now Debt) bool {
	return now.PendingCompactions <= baseline.PendingCompactions+compactionSlack &&
		now.HintFiles <= baseline.HintFiles &&
		now.PoolPending <= baseline.PoolPending
}

// Waiter waits for the nodes to pay back the debt a step left.
type Waiter struct {
	// Read reads the nodes' debt now.
	Read func(context.Context) (Debt, error)
	// Poll is the time between reads; Limit the longest wait.
	Poll, Limit time.Duration
	// Now and Sleep are the clock; time.Now and a timer when nil.
	Now   func() time.Time
	Sleep func(context.Context, time.Duration)
}

// Wait reads the debt every Poll until it is back to baseline, or Limit passes, or ctx ends.
// It returns how long it waited and whether the debt was paid back; a read that fails counts
// as not paid back.
func (w Waiter) Wait(ctx context.Context, baseline Debt) (time.Duration, bool) {
	now, sleep := w.Now, w.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	start := now()
	for {
		if d, err := w.Read(ctx); err == nil && PaidBack(baseline, d) {
			return now().Sub(start), true
		}
		if now().Sub(start) >= w.Limit || ctx.Err() != nil {
			return now().Sub(start), false
		}
		sleep(ctx, w.Poll)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
