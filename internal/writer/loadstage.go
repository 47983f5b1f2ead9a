package writer

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/dataset"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/workload"
)

// onDataset points the generator's reads at the run's dataset: the one this run loads, or
// the one an earlier run recorded in the keyspace, which is checked here again (setup checked
// it first) because the writer needs to know how many writers loaded it.
func onDataset(ctx context.Context, cfg Config, s *gocql.Session, schema *workload.Schema, gen *workload.Generator, timeout time.Duration) (*workload.Generator, error) {
	d := cfg.Spec.Workload.Dataset
	loaders := cfg.Writers
	if !d.Load {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		entries, err := dataset.Read(ctx, s, schema.Keyspace, schema.Table)
		if err != nil {
			return nil, err
		}
		if loaders, err = dataset.Check(dataset.WantOf(cfg.Spec, schema.Keyspace, schema.Table), entries); err != nil {
			return nil, err
		}
	}
	return gen.OnDataset(cfg.Spec, d.Rows, loaders)
}

// loadStage writes this writer's share of the dataset, after a barrier of its own so that
// the writers load side by side, as fast as the cluster takes it (a closed loop at the
// spec's concurrency, retries as in the window). When every row of the share is in, it
// records the share in the keyspace; a share with failed inserts is not recorded, so no
// later run trusts a dataset that lacks rows. What it measured goes to sum.Load only.
func (ld *load) loadStage(ctx context.Context, sum *summary.Summary) error {
	cfg, spec := ld.cfg, ld.cfg.Spec
	want := Share(spec.Workload.Dataset.Rows, cfg.Writers, cfg.Index)
	ld.measureClock(ctx, sum)
	begin, err := ld.barrier(ctx, cfg.RunID+"/load", cfg.BarrierTimeout)
	if err != nil {
		return fmt.Errorf("load stage: %w", err)
	}
	sleepCtx(ctx, begin.Sub(ld.now()))
	eng := &engine{retries: ld.eng.retries, backoff: ld.eng.backoff, now: ld.cfg.Now}
	for range ld.shape.concurrency {
		eng.ops = append(eng.ops, newLoadOp(ld.conn.session, ld.mix.gen, ld.mix.writeCL, ld.mix.meta.insert, ld.conn.deadlines.New(), ld.cfg.Now))
	}
	stopped := context.AfterFunc(ctx, func() { eng.stop.Store(true) })
	defer stopped()
	stats := newPhaseStats(ld.shape.concurrency)
	started := ld.now()
	ld.st.loading = stats
	ld.st.enter(phaseLoading, started)
	eng.run(phase{Start: started, Limit: want}, stats)
	ended := ld.now()
	took := ended.Sub(started)
	ld.st.enter(phaseWaiting, ended)
	ld.met.loadTook = took
	ops := summarize(stats.kind(Write))
	sum.Load = &summary.Load{Rows: ops.OK, Wanted: want, Failed: ops.Failed(), Bytes: ops.Bytes, Millis: took.Milliseconds()}
	fmt.Fprintf(cfg.Progress, "writer %d/%d: loaded %d of %d rows in %s (%d failed)\n", cfg.Index, cfg.Writers, ops.OK, want, took.Round(time.Millisecond), sum.Load.Failed)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("load stage interrupted: %w", err)
	}
	if sum.Load.Failed > 0 || ops.OK != want {
		fmt.Fprintf(cfg.Progress, "writer %d/%d: not recording the dataset: %d of %d rows failed to load\n", cfg.Index, cfg.Writers, want-ops.OK, want)
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, ld.setupTimeout())
	defer cancel()
	return dataset.Record(rctx, ld.conn.session, ld.conn.schema.Keyspace, ld.conn.schema.Table, dataset.Entry{
		Writer: cfg.Index, Writers: cfg.Writers, Rows: want, Fields: dataset.FieldMap(workload.DatasetFields(spec)), LoadedAt: ld.now(),
	})
}

// loadOp inserts the load stage's rows: operation seq writes this writer's row ordinal seq.
type loadOp struct {
	gen      *workload.Generator
	insert   *gocql.Query
	row      []any
	cells    []*workload.Cell
	key      *routingKey
	route    *cql.Route
	ctx      context.Context
	deadline *cql.Deadline
	// now is the writer's clock, which timestamps the rows (see cqlOp.stamp).
	now func() time.Time
}

func newLoadOp(s *gocql.Session, gen *workload.Generator, cl gocql.Consistency, meta gocql.StatementMetadata, deadline *cql.Deadline, now func() time.Time) *loadOp {
	l := &loadOp{gen: gen, deadline: deadline, now: now}
	cells := make([]cell, gen.InsertArity())
	l.row, l.cells = make([]any, len(cells)), make([]*workload.Cell, len(cells))
	for i := range cells {
		l.row[i], l.cells[i] = &cells[i], &cells[i].Cell
	}
	l.insert = s.Query(gen.InsertCQL(), l.row...).Consistency(cl).Idempotent(true)
	l.key = newRoutingKey(meta)
	l.route, l.ctx = newRoute(l.key, deadline)
	return l
}

func (l *loadOp) bind(seq int64) (Kind, int) {
	n := l.gen.LoadCells(seq, l.cells)
	route(l.route, l.key, l.row)
	return Write, n
}

func (l *loadOp) exec(Kind) (int, int, error) {
	l.deadline.Arm()
	defer l.deadline.Disarm()
	l.insert.WithTimestamp(l.now().UnixMicro())
	return 0, 0, l.insert.ExecContext(l.ctx)
}
