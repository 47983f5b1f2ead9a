package writer

import (
	"context"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/server"
	"github.com/cassbench/cassbench/internal/summary"
)

// serverWatch records, over the measured window, the writer's own CPU and what the Cassandra nodes
// this writer watches did (each node is watched by one writer: see server.Assign).
type serverWatch struct {
	cpu     *cpuMeter
	sampler chan *server.Sampler
}

// sampleEvery spaces the samples between the window's ends: ten over the window, at least
// half a second apart (each reads a few virtual tables per node) and at most five seconds.
func sampleEvery(window time.Duration) time.Duration {
	if window <= 0 {
		return 5 * time.Second
	}
	return min(max(window/10, 500*time.Millisecond), 5*time.Second)
}

// startWatch starts both at once; the first snapshots are read in the background so that the
// load is not held up by them.
func startWatch(ctx context.Context, s *gocql.Session, cfg Config, keyspace, table string, window time.Duration) *serverWatch {
	w := &serverWatch{cpu: startCPU(), sampler: make(chan *server.Sampler, 1)}
	go func() {
		targets := server.Assign(server.Targets(s, keyspace, table), cfg.Index, cfg.Writers)
		w.sampler <- server.Start(ctx, s, targets, sampleEvery(window), cfg.Now)
	}()
	return w
}

// stop ends both and returns the figures for the summary; server is nil when this writer
// watched no node.
func (w *serverWatch) stop(ctx context.Context, concurrency int, rate int64) (*summary.Server, *summary.WriterCPU) {
	cpu := w.cpu.stop()
	cpu.Concurrency, cpu.Rate = int32(concurrency), rate
	// An interrupted run still reads the nodes at its end: that is when the figures explain
	// most. Every read has its own timeout.
	return (<-w.sampler).Stop(context.WithoutCancel(ctx)), cpu
}
