package writer

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
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
	// Now is the writer's one clock (see clock.go); time.Now when nil. A test may offset it,
	// never slow or stop it.
	Now func() time.Time
	// CSV is the file of schema.csv, for columns that take their values from it.
	CSV *workload.CSV
	// Lag, when set, gets a sampled share of the acknowledged single-row inserts.
	Lag *LagTap
	// Measuring, when set, is told when the measured window starts, on this writer's clock.
	Measuring func(start time.Time)
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
	ld.st.enter(phaseDone, ld.now())
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
