// Package writer is the load generator of a benchmark run: one writer of N, which meets the
// others at a start barrier kept in Cassandra, drives its share of the load in a closed or
// open loop, and reports what it measured as a summary.Summary.
package writer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/workload"
)

// Config is one writer of one run.
type Config struct {
	Spec *cbv1.BenchmarkRunSpec
	// Conn says where Cassandra is; the request timeout and connections per host come from
	// the spec.
	Conn cql.Options
	// RunID keys the start barrier: writers with the same RunID start together.
	RunID          string
	Index, Writers int32
	// Datacenter is the local datacenter, passed to schema building like setup does.
	Datacenter     string
	BarrierTimeout time.Duration
	// GiveUp, when set, is asked at every poll of the start barrier whether to stop waiting;
	// its error says why (a writer of the same process failed before arriving).
	GiveUp func() error
	// MetricsAddr serves /metrics when set.
	MetricsAddr string
	// Progress gets a line every ProgressEvery (5 s when zero).
	Progress      io.Writer
	ProgressEvery time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// CSV is the file of schema.csv, for columns that take their values from it.
	CSV *workload.CSV
	// Lag, when set, gets a sampled share of the acknowledged single-row inserts.
	Lag *LagTap
}

// Run runs the writer and returns its summary, which is never nil: when the writer fails, its
// Error is set and whatever was measured is kept.
func Run(ctx context.Context, cfg Config) (*summary.Summary, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	sum := &summary.Summary{Version: summary.Version, Index: cfg.Index, Writers: cfg.Writers}
	// A writer that fails keeps what it measured; one that fails before measuring reports no
	// window, which leaves the merged window alone.
	fail := func(err error) (*summary.Summary, error) {
		sum.Error = err.Error()
		return sum, err
	}
	if cfg.Writers < 1 || cfg.Index < 0 || cfg.Index >= cfg.Writers {
		return fail(fmt.Errorf("writer index %d is not in [0, %d)", cfg.Index, cfg.Writers))
	}
	ld, err := newLoad(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	defer ld.close()

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ld.observe(runCtx)
	if d := cfg.Spec.Workload.Dataset; d != nil && d.Load {
		if err := ld.loadStage(ctx, sum); err != nil {
			return fail(err)
		}
	}
	begin, err := ld.meet(ctx, sum)
	if err != nil {
		return fail(err)
	}
	abort := watch(runCtx, ld.eng, ld.st, Budget{MaxPercent: ptrOr(cfg.Spec.Writers.MaxErrorPercent, 0)})
	var stepsErr error
	if cfg.Spec.Capacity != nil {
		stepsErr = ld.steps(ctx, begin, sum)
	} else {
		stepsErr = ld.measure(ctx, begin, sum)
	}
	ld.st.enter(phaseDone, time.Now())
	stop()
	sum.Paths = ld.paths()
	ld.reportPaths(sum.Paths)

	if err := abort(); err != nil {
		return fail(err)
	}
	if stepsErr != nil {
		return fail(stepsErr)
	}
	if err := nothingSucceeded(sum, ld.eng.lastErr.Load()); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("writer interrupted: %w", err))
	}
	return sum, nil
}

// load is one writer's load: the session, the workload and the engine that drives it.
type load struct {
	cfg     Config
	schema  *workload.Schema
	session *gocql.Session
	// direct executes the single-row inserts beside the session (nil with driverIO Stock).
	direct      *cql.Direct
	timeout     time.Duration
	concurrency int
	// rate is this writer's share of an open loop's rate; 0 in a closed loop.
	rate      int64
	eng       *engine
	st        *state
	deadlines *cql.Deadlines
	restoreGC func()
	// kinds are the workload.operations in the mix.
	kinds []workload.OpKind
	// gen, writeCL and meta are kept for the load stage, which has operations of its own.
	gen     *workload.Generator
	writeCL gocql.Consistency
	meta    statements
	// clock is this writer's clock against Cassandra's, measured once (clocked says so).
	clock   ClockOffset
	clocked bool
	// loadTook is how long the load stage took; the others may take as long again to reach
	// the start barrier of the window.
	loadTook time.Duration
	// verifiers are the load goroutines' read checks, with workload.verifyReads.
	verifiers []*verifier
	// nodes holds the first snapshots of the nodes this writer watches, once read.
	nodes *nodewatch.Sampler
	// lateRead is how long after the window's start its first reading of the nodes ended,
	// when it ended after it (load.afterWarmup).
	lateRead time.Duration
}

// newLoad builds the workload, connects, prepares the statements (so that a missing table
// fails the writer at once and the first measured operations do not pay for preparing) and
// gives the engine one operation per request in flight.
func newLoad(ctx context.Context, cfg Config) (*load, error) {
	spec := cfg.Spec
	w := spec.Writers
	if err := defaulted(w); err != nil {
		return nil, err
	}
	schema, err := workload.BuildSchema(spec, cfg.Datacenter)
	if err != nil {
		return nil, fmt.Errorf("building schema: %w", err)
	}
	writeCL, err := cql.ParseConsistency(string(spec.Workload.WriteConsistency))
	if err != nil {
		return nil, err
	}
	readCL, err := cql.ParseConsistency(string(spec.Workload.ReadConsistency))
	if err != nil {
		return nil, err
	}
	// A generator is a pure function of the operation number, so all goroutines share one.
	gen, err := workload.NewGeneratorWith(spec, cfg.Index, cfg.Writers, workload.Options{CSV: cfg.CSV})
	if err != nil {
		return nil, fmt.Errorf("building the workload: %w", err)
	}
	ld := &load{cfg: cfg, schema: schema, concurrency: int(w.Concurrency), timeout: w.RequestTimeout.Duration}
	if w.Rate != nil {
		ld.rate = Share(*w.Rate, cfg.Writers, cfg.Index)
	}

	conn := cfg.Conn
	// Statements are fully qualified; the session keyspace is there for token-aware routing,
	// which looks the replicas up by the keyspace of the session when a routing key is given.
	conn.Keyspace = schema.Keyspace
	conn.Timeout = ld.timeout
	// Every request of the session runs under a context with a deadline: the load's under
	// one Deadline per goroutine, the others under their own timeouts.
	conn.ContextTimeouts = true
	conn.NumConns = int(w.ConnectionsPerHost)
	conn.Stock = w.DriverIO == cbv1.DriverIOStock
	if ld.session, ld.direct, err = connectRetrying(ctx, conn, cfg.BarrierTimeout); err != nil {
		if errors.Is(err, gocql.ErrKeyspaceDoesNotExist) || strings.Contains(err.Error(), "does not exist") {
			err = fmt.Errorf("%w (did cassbench setup run?)", err)
		}
		return nil, err
	}
	ld.restoreGC = tuneGC(ld.concurrency)
	if spec.Workload.Dataset != nil {
		if gen, err = onDataset(ctx, cfg, ld.session, schema, gen, ld.setupTimeout()); err != nil {
			ld.close()
			return nil, err
		}
	}
	meta, err := prepare(ctx, ld.session, gen, spec.Workload, ld.setupTimeout())
	if err != nil {
		ld.close()
		return nil, err
	}
	if ld.direct != nil {
		ld.direct.Warm(ctx)
	}
	ld.kinds = gen.Kinds()
	ld.gen, ld.writeCL, ld.meta = gen, writeCL, meta
	ld.st = newState(ld.concurrency)
	ld.eng = &engine{retries: int(*w.Retries), backoff: DefaultBackoff, log: func(o Outcome, err error) {
		fmt.Fprintf(cfg.Progress, "writer %d/%d: first %s error: %v\n", cfg.Index, cfg.Writers, o, err)
	}}
	ld.deadlines = cql.NewDeadlines(ld.timeout)
	for i := range ld.concurrency {
		op := newCQLOp(ld.session, gen, spec.Workload, writeCL, readCL, meta, ld.deadlines.New(), cfg.Now)
		op.goDirect(ld.direct, gen, writeCL, meta, i)
		if cfg.Lag != nil {
			op.lag = &lagTap{tap: cfg.Lag, key: gen.RowKey(), clock: &ld.clock}
		}
		if spec.Workload.VerifyReads && spec.Workload.ReadRatio > 0 {
			op.verify = newVerifier(gen)
			ld.verifiers = append(ld.verifiers, op.verify)
		}
		ld.eng.ops = append(ld.eng.ops, op)
	}
	return ld, nil
}

func (ld *load) close() {
	if ld.deadlines != nil {
		ld.deadlines.Stop()
	}
	if ld.restoreGC != nil {
		ld.restoreGC()
	}
	if ld.direct != nil {
		ld.direct.Close()
	}
	ld.session.Close()
}

// observe serves /metrics and prints progress until ctx ends.
func (ld *load) observe(ctx context.Context) {
	cfg := ld.cfg
	if cfg.MetricsAddr != "" {
		if _, err := serveMetrics(ctx, cfg.MetricsAddr, newCollector(ld.st, cfg.Index)); err != nil {
			fmt.Fprintf(cfg.Progress, "writer %d/%d: not serving metrics: %v\n", cfg.Index, cfg.Writers, err)
		}
	}
	go report(ctx, cfg, ld.st, durationOf(cfg.Spec.Writers.Duration))
}

// setupTimeout bounds preparing, the clock offset and the barrier, which are not the load: a
// request timeout of 10 ms (seed 003, where a later answer lost the bid) must not fail a
// writer whose prepare takes 20 ms.
func (ld *load) setupTimeout() time.Duration { return max(ld.timeout, 10*time.Second) }

// pace makes a phase an open loop at this writer's rate, when it has one.
func (ld *load) pace(p phase) phase {
	if ld.rate > 0 {
		p.Rate = ld.rate
		p.Poisson, p.Seed = ld.cfg.Spec.Writers.Arrivals == cbv1.ArrivalsPoisson, uint64(ld.cfg.Index)
		// Evenly spaced writers are offset by a share of their interval, so that N of them
		// do not all fire in the same instant.
		p.Start = p.Start.Add(time.Second * time.Duration(ld.cfg.Index) / time.Duration(ld.rate*int64(ld.cfg.Writers)))
	}
	return p
}

// measure runs the warm-up and the measured window from begin, with the timeline and the
// server's figures sampled alongside, and writes what the window measured into sum. Its
// error is the barrier between the warm-up and the window failing.
func (ld *load) measure(ctx context.Context, begin time.Time, sum *summary.Summary) error {
	w, cfg, st, eng := ld.cfg.Spec.Writers, ld.cfg, ld.st, ld.eng
	wall := wallClock(cfg.Now)
	start := begin
	if warmup := durationOf(w.Warmup); warmup > 0 {
		st.enter(phaseWarmup, begin)
		eng.run(ld.pace(phase{Start: begin, End: begin.Add(warmup), Limit: -1}), st.warm)
		var err error
		if start, err = ld.afterWarmup(ctx); err != nil {
			if ctx.Err() == nil {
				return err
			}
			eng.stop.Store(true) // interrupted: Run says so, and no window starts
		}
	}
	for _, v := range ld.verifiers {
		v.reset() // the window counts its own reads only
	}
	window := phase{Start: start, Limit: -1}
	if d := durationOf(w.Duration); d > 0 {
		window.End = window.Start.Add(d)
	}
	if w.Operations != nil {
		window.Limit = Share(*w.Operations, cfg.Writers, cfg.Index)
	}
	if w.Rate != nil && ld.rate == 0 {
		// A rate below the writer count leaves this writer nothing to do.
		window.Limit = 0
	}
	var res phaseResult
	if !eng.stop.Load() {
		st.enter(phaseMeasuring, window.Start)
		smp := newSampler(st.measured, timelineInterval(durationOf(w.Duration)))
		stopSampling, timeline := make(chan struct{}), make(chan *summary.Timeline, 1)
		go func() { timeline <- smp.run(window.Start, stopSampling) }()
		if ld.nodes == nil {
			ld.nodes = beginWatch(ctx, ld.session, cfg, ld.schema.Keyspace, ld.schema.Table)
		}
		watching := startWatch(ctx, ld.nodes, window.End.Sub(window.Start))
		res = eng.run(ld.pace(window), st.measured)
		close(stopSampling)
		sum.Timeline = <-timeline
		sum.Server, sum.CPU = watching.stop(ctx, ld.concurrency, ld.rate, ld.end(ctx))
		ld.noteLateRead(sum.Server)
	} else {
		// A writer stopped before its window still ends, so the others do not wait for it.
		_ = ld.end(ctx)(false)
	}

	if !res.First.IsZero() {
		sum.Start, sum.End = wall(res.First).UnixMilli(), wall(res.Last).UnixMilli()
		sum.SpanMicros = res.Last.Sub(res.First).Microseconds()
	}
	wl := cfg.Spec.Workload
	if wl.WriteRatio > 0 || wl.ReadRatio == 0 && len(wl.Operations) == 0 {
		sum.Writes = summarize(st.measured.kind(Write))
	}
	if wl.ReadRatio > 0 {
		sum.Reads = summarize(st.measured.kind(Read))
		for _, v := range ld.verifiers {
			sum.Reads.Mismatches += v.mismatches
		}
	}
	for _, k := range ld.kinds {
		sum.Kinds = append(sum.Kinds, summarizeKind(Kind(k), st.measured.kind(Kind(k))))
	}
	if ld.rate > 0 {
		lag, late1ms, lateTenth := summarizePace(st.measured)
		sum.Lag = lag
		sum.Schedule = &summary.Schedule{Target: ld.rate, Due: res.Due, Missed: res.Missed, Backlog: res.Backlog, Late1ms: late1ms, Late10pct: lateTenth}
		if !window.End.IsZero() && res.Last.After(window.End) {
			sum.Schedule.DrainMicros = res.Last.Sub(window.End).Microseconds()
		}
	}
	return nil
}

// wallClock maps a reading of the monotonic clock to the writer's wall clock as now tells
// it (a test may skew it).
func wallClock(now func() time.Time) func(time.Time) time.Time {
	ref, refWall := time.Now(), now()
	return func(t time.Time) time.Time { return refWall.Add(t.Sub(ref)) }
}

// prepare prepares the statements before the barrier, so that a missing table fails the
// writer at once and the first measured operations do not pay for preparing.
func prepare(ctx context.Context, s *gocql.Session, gen *workload.Generator, w cbv1.WorkloadSpec, timeout time.Duration) (statements, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var meta statements
	var err error
	// A mix without inserts may be on a counter table, which refuses them.
	if w.WriteRatio > 0 || len(w.Operations) == 0 {
		if meta.insert, err = s.StatementMetadata(ctx, gen.InsertCQL(), ""); err != nil {
			return meta, fmt.Errorf("preparing %q (did cassbench setup run?): %w", gen.InsertCQL(), err)
		}
	}
	for _, k := range gen.Kinds() {
		if meta.kinds[k], err = s.StatementMetadata(ctx, gen.CQL(k), ""); err != nil {
			return meta, fmt.Errorf("preparing %s %q (did cassbench setup run?): %w", k, gen.CQL(k), err)
		}
	}
	if w.ReadRatio > 0 {
		if meta.read, err = s.StatementMetadata(ctx, gen.ReadCQL(), ""); err != nil {
			return meta, fmt.Errorf("preparing %q (did cassbench setup run?): %w", gen.ReadCQL(), err)
		}
	}
	return meta, nil
}

// defaulted asserts that the CRD's defaults are in the spec: the writer reads them, and does
// not keep copies of them that could drift. A spec from admission.RunSpec (the writer's and
// cassbench run's), from an API server, or from admission.DefaultRunSpec (specs built in Go)
// has them; anything else is a bug to fail on, not to run with made-up values.
func defaulted(w cbv1.WritersSpec) error {
	var unset []string
	if w.Concurrency < 1 {
		unset = append(unset, "concurrency")
	}
	if w.RequestTimeout == nil {
		unset = append(unset, "requestTimeout")
	}
	if w.Retries == nil {
		unset = append(unset, "retries")
	}
	if w.ConnectionsPerHost < 1 {
		unset = append(unset, "connectionsPerHost")
	}
	if len(unset) > 0 {
		return fmt.Errorf("writer: spec.writers.%s not set: the spec was not defaulted by the CRD (read it with admission.RunSpec or admission.DefaultRunSpec)", strings.Join(unset, ", "))
	}
	return nil
}

// durationOf reads an optional duration: unset (no duration, a run bounded by operations; no
// warm-up) is zero.
func durationOf(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
