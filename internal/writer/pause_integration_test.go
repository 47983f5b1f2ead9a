package writer_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A node frozen for a few seconds (SIGSTOP, as in a long GC pause) answers nothing while its
// connections stay open: only the writer's own request deadline ends those requests. They are
// counted as client timeouts, each after about the request timeout, and the node's
// connections are kept, so nothing fails otherwise.
func TestNodePausedMidRun(t *testing.T) {
	c := cluster(t)
	const timeout = 500 * time.Millisecond
	s := spec("it_nodepause", func(b *builders.BenchmarkRunBuilder) {
		b.ReplicationFactor(1).WriteConsistency("ONE").RequestTimeout(timeout).Duration(time.Hour).Concurrency(8)
	})
	s.Writers.Retries = ptr.To[int32](0)
	setUp(t, c, s)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const pause = 3 * time.Second
	go func() {
		time.Sleep(4 * time.Second) // barrier (about 2 s) and some load first
		c.PauseNode(t, 2, pause)
		time.Sleep(4 * time.Second)
		cancel()
	}()
	sums, _ := runWriters(ctx, t, c, s)
	w := sums[0].Writes
	if w == nil || w.OK == 0 {
		t.Fatalf("no successful writes: %+v", w)
	}
	if w.ClientTimeout == 0 {
		t.Fatalf("no client timeouts counted while node 2 was frozen for %s: %+v", pause, w)
	}
	// Eight goroutines each wait one timeout per request routed to the frozen node, so
	// about 8 * pause/timeout requests can time out (a few more if the loaded machine stalls
	// a request elsewhere); timeouts that fired early would be many more.
	if limit := int64(8 * (pause/timeout + 4)); w.ClientTimeout > limit {
		t.Errorf("%d client timeouts in a %s pause with 8 goroutines and a %s timeout: more than %d, so some came early", w.ClientTimeout, pause, timeout, limit)
	}
	if w.Other != 0 {
		t.Errorf("%d writes failed otherwise (connections given up?): %+v", w.Other, w)
	}
	t.Logf("ok %d, client timeouts %d, other %d", w.OK, w.ClientTimeout, w.Other)
}
