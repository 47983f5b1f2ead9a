package writer

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/summary"
)

// serverWatch records, over the measured window, the writer's own CPU and what the Cassandra nodes
// this writer watches did (each node is watched by one writer: see nodewatch.Assign).
type serverWatch struct {
	cpu     *cpuMeter
	sampler *nodewatch.Sampler
}

// sampleEvery spaces the samples between the window's ends: ten over the window, at least
// half a second apart (each reads a few virtual tables per node) and at most five seconds.
func sampleEvery(window time.Duration) time.Duration {
	if window <= 0 {
		return 5 * time.Second
	}
	return min(max(window/10, 500*time.Millisecond), 5*time.Second)
}

// beginWatch reads this writer's nodes for the start of the run's window. It runs where no
// writer sends: before the start barrier, or after the warm-up once every writer's drained
// (load.afterWarmup).
func beginWatch(ctx context.Context, s *gocql.Session, cfg Config, keyspace, table string) *nodewatch.Sampler {
	targets := nodewatch.Assign(nodewatch.Targets(s, keyspace, table), cfg.Index, cfg.Writers)
	return nodewatch.Begin(ctx, s, targets, cfg.Now)
}

// startWatch starts the CPU meter and the nodes' sampling over the window, from the snapshots
// sm took.
func startWatch(ctx context.Context, sm *nodewatch.Sampler, window time.Duration, now func() time.Time) *serverWatch {
	sm.Watch(ctx, sampleEvery(window))
	return &serverWatch{cpu: startCPU(now), sampler: sm}
}

// stop ends both and returns the figures for the summary; server is nil when this writer
// watched no node. end is the end barrier: a writer that reads nodes reads them for the last
// time once every writer's window has ended.
func (w *serverWatch) stop(ctx context.Context, concurrency int, rate int64, end func(wait bool) error) (*summary.Server, *summary.WriterCPU) {
	cpu := w.cpu.stop()
	cpu.Concurrency, cpu.Rate = int32(concurrency), rate
	endErr := end(w.sampler.Watches())
	// An interrupted run still reads the nodes at its end: that is when the figures explain
	// most. Every read has its own timeout.
	srv := w.sampler.Stop(context.WithoutCancel(ctx))
	// An interrupted writer does not wait for the others, and says nothing of it: the run is
	// ending as a whole.
	if srv != nil && endErr != nil && ctx.Err() == nil {
		note := fmt.Sprintf("read before every writer ended (%v)", endErr)
		if srv.Error != "" {
			note = srv.Error + "; " + note
		}
		srv.Error = note
		srv.Bound()
	}
	return srv, cpu
}
