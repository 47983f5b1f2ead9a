package writer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/nodewatch"
	"github.com/cassbench/cassbench/internal/workload"
)

// load is one writer's load. Run builds it (newLoad, here), runs its stages in order — the
// load stage (loadstage.go), the meeting at the start barrier (rendezvous.go), then the
// measured window (window.go) or a capacity search's rounds (capacity_steps.go) — and closes
// it. Every stage drives the one engine (engine.go), which is the load loop itself, and reads
// time from the one clock, cfg.Now (clock.go).
type load struct {
	cfg   Config
	conn  connection
	shape loadShape
	mix   mix
	eng   *engine
	st    *state
	met   meeting
	// restoreGC puts back the garbage collector's settings newLoad tuned for the load.
	restoreGC func()
}

// connection is the load's way to Cassandra and what it addresses there; newLoad opens it
// and close closes it.
type connection struct {
	schema  *workload.Schema
	session *gocql.Session
	// direct executes the single-row inserts beside the session (nil with driverIO Stock).
	direct    *cql.Direct
	deadlines *cql.Deadlines
}

// loadShape is how hard this writer loads, read from the spec once by newLoad.
type loadShape struct {
	concurrency int
	timeout     time.Duration
	// rate is this writer's share of an open loop's rate; 0 in a closed loop.
	rate int64
}

// mix is the workload's operations as newLoad prepared them. The load stage makes operations
// of its own from gen, writeCL and meta.
type mix struct {
	gen     *workload.Generator
	writeCL gocql.Consistency
	meta    statements
	// kinds are the workload.operations in the mix.
	kinds []workload.OpKind
	// verifiers are the load goroutines' read checks, with workload.verifyReads.
	verifiers []*verifier
}

// meeting is what the writer learns before its window, as it meets the others
// (rendezvous.go) and, for nodes, as the window starts (window.go).
type meeting struct {
	// offset is this writer's clock against Cassandra's, measured once (measured says so).
	offset   ClockOffset
	measured bool
	// loadTook is how long the load stage took; the others may take as long again to reach
	// the start barrier of the window.
	loadTook time.Duration
	// nodes holds the first snapshots of the nodes this writer watches, once read.
	nodes *nodewatch.Sampler
	// lateRead is how long after the window's start its first reading of the nodes ended,
	// when it ended after it (load.afterWarmup).
	lateRead time.Duration
}

// now reads the writer's one clock.
func (ld *load) now() time.Time { return ld.cfg.Now() }

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
	ld := &load{cfg: cfg, conn: connection{schema: schema},
		shape: loadShape{concurrency: int(w.Concurrency), timeout: w.RequestTimeout.Duration}}
	if w.Rate != nil {
		ld.shape.rate = Share(*w.Rate, cfg.Writers, cfg.Index)
	}
	if err := ld.connect(ctx); err != nil {
		return nil, err
	}
	// A capacity search runs its rounds as open loops too; a quota is read as the writer's
	// CPU summary reads it.
	ld.restoreGC = tuneGC(gcLoad{inFlight: ld.shape.concurrency, open: ld.shape.rate > 0 || spec.Capacity != nil,
		quota: cpuLimit() > 0})
	if spec.Workload.Dataset != nil {
		if gen, err = onDataset(ctx, cfg, ld.conn.session, schema, gen, ld.setupTimeout()); err != nil {
			ld.close()
			return nil, err
		}
	}
	meta, err := prepare(ctx, ld.conn.session, gen, spec.Workload, ld.setupTimeout())
	if err != nil {
		ld.close()
		return nil, err
	}
	if ld.conn.direct != nil {
		ld.conn.direct.Warm(ctx)
	}
	ld.mix = mix{gen: gen, writeCL: writeCL, meta: meta, kinds: gen.Kinds()}
	ld.st = newState(ld.shape.concurrency)
	ld.conn.deadlines = cql.NewDeadlines(ld.shape.timeout)
	ld.eng = ld.newEngine(readCL)
	return ld, nil
}

// connect opens the session (and Direct beside it) to the schema's keyspace.
func (ld *load) connect(ctx context.Context) error {
	w := ld.cfg.Spec.Writers
	conn := ld.cfg.Conn
	// Statements are fully qualified; the session keyspace is there for token-aware routing,
	// which looks the replicas up by the keyspace of the session when a routing key is given.
	conn.Keyspace = ld.conn.schema.Keyspace
	conn.Timeout = ld.shape.timeout
	// Every request of the session runs under a context with a deadline: the load's under
	// one Deadline per goroutine, the others under their own timeouts.
	conn.ContextTimeouts = true
	conn.NumConns = int(w.ConnectionsPerHost)
	conn.Stock = w.DriverIO == cbv1.DriverIOStock
	// A pacing tick wakes the operations due in it together: sent together, they share a write.
	conn.Together = w.PacingTick != nil
	var err error
	if ld.conn.session, ld.conn.direct, err = connectRetrying(ctx, conn, ld.cfg.BarrierTimeout, ld.cfg.Now); err != nil {
		if errors.Is(err, gocql.ErrKeyspaceDoesNotExist) || strings.Contains(err.Error(), "does not exist") {
			err = fmt.Errorf("%w (did cassbench setup run?)", err)
		}
		return err
	}
	return nil
}

// newEngine gives the engine one operation of the mix per request in flight.
func (ld *load) newEngine(readCL gocql.Consistency) *engine {
	cfg, spec, m := ld.cfg, ld.cfg.Spec, ld.mix
	eng := &engine{retries: int(*spec.Writers.Retries), backoff: DefaultBackoff, now: cfg.Now, log: func(o Outcome, err error) {
		fmt.Fprintf(cfg.Progress, "writer %d/%d: first %s error: %v\n", cfg.Index, cfg.Writers, o, err)
	}}
	for i := range ld.shape.concurrency {
		op := newCQLOp(ld.conn.session, m.gen, spec.Workload, m.writeCL, readCL, m.meta, ld.conn.deadlines.New(), cfg.Now)
		op.goDirect(ld.conn.direct, m.gen, m.writeCL, m.meta, i)
		if cfg.Lag != nil {
			op.lag = &lagTap{tap: cfg.Lag, key: m.gen.RowKey(), clock: &ld.met.offset}
		}
		if spec.Workload.VerifyReads && spec.Workload.ReadRatio > 0 {
			op.verify = newVerifier(m.gen)
			ld.mix.verifiers = append(ld.mix.verifiers, op.verify)
		}
		eng.ops = append(eng.ops, op)
	}
	return eng
}

func (ld *load) close() {
	if ld.conn.deadlines != nil {
		ld.conn.deadlines.Stop()
	}
	if ld.restoreGC != nil {
		ld.restoreGC()
	}
	if ld.conn.direct != nil {
		ld.conn.direct.Close()
	}
	ld.conn.session.Close()
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
func (ld *load) setupTimeout() time.Duration { return max(ld.shape.timeout, 10*time.Second) }

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
