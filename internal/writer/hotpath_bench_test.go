package writer

import (
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/workload"
)

// unsent is a cqlOp whose operations are bound but never sent, so a benchmark measures the
// writer's own per-operation work: generating values and bookkeeping, not the driver.
type unsent struct{ *cqlOp }

func (unsent) exec(Kind) (int, int, error) { return 0, 0, nil }

// BenchmarkHotPath runs the engine's loop (schedule, sequence, bind, classify, record) for
// each built-in profile with the driver cut out. Allocations here are the writer's own.
func BenchmarkHotPath(b *testing.B) {
	for _, profile := range []cbv1.TableProfile{cbv1.ProfileKeyValue, cbv1.ProfileIPByCity, cbv1.ProfileUserWide} {
		b.Run(string(profile), func(b *testing.B) {
			spec, err := admission.DefaultRunSpec(&cbv1.BenchmarkRunSpec{
				Writers: cbv1.WritersSpec{Replicas: 1}, Schema: cbv1.SchemaSpec{Table: cbv1.TableSpec{Profile: profile}},
			})
			if err != nil {
				b.Fatal(err)
			}
			gen, err := workload.NewGenerator(spec, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			op := &cqlOp{gen: gen}
			op.allocRows(1)
			e := &engine{ops: []operation{unsent{op}}}
			ps := newPhaseStats(1)
			b.ReportAllocs()
			b.ResetTimer()
			e.run(phase{Limit: int64(b.N)}, ps)
			b.StopTimer()
			if got := summarize(ps.kind(Write)).OK; got != int64(b.N) {
				b.Fatalf("recorded %d operations of %d", got, b.N)
			}
		})
	}
}

// staticOp binds nothing and always succeeds: what remains is the engine's own work.
type staticOp struct{}

func (staticOp) bind(int64) (Kind, int)      { return Write, 100 }
func (staticOp) exec(Kind) (int, int, error) { return 0, 0, nil }

// The writer's own part of an operation (schedule, sequence, classify, record) must not
// allocate: at 100k ops/s per core, every allocation per operation is garbage the collector
// pays for in CPU the benchmark needs. Value generation is the workload package's to measure.
func TestBookkeepingDoesNotAllocate(t *testing.T) {
	for name, p := range map[string]phase{"closed loop": {Limit: 10000}, "open loop": {Limit: 10000, Rate: 1e8}} {
		t.Run(name, func(t *testing.T) {
			e := &engine{ops: []operation{staticOp{}}}
			ps := newPhaseStats(1)
			p.Start = time.Now()
			e.run(p, ps) // let the sketches grow their buckets first
			allocs := testing.AllocsPerRun(5, func() {
				p.Start = time.Now()
				e.run(p, ps)
			})
			// A run starts a goroutine, its random source and (open loop) its timetable and
			// timer: a handful per run, none per operation.
			if allocs > 20 {
				t.Errorf("%.0f allocations for a run of 10000 operations", allocs)
			}
		})
	}
}
