package writer_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/compare"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/writer"
)

// timing skips a test that measures time unless it runs alone: make test runs these after
// the parallel packages (make test-timing), where no other test shares the machine's cores.
func timing(t *testing.T) {
	t.Helper()
	if os.Getenv("CASSBENCH_TIMING_TESTS") != "1" {
		t.Skip("measures timing: run alone by make test-timing (CASSBENCH_TIMING_TESTS=1), which make test runs after the other packages")
	}
}

// An open loop far above what the cluster can do reports what the cluster did: its achieved
// throughput is about the closed loop's, far below the target; the operations it could not start
// are missed, not run after the window; and the run ends on time instead of draining a
// backlog of twenty times the window. The closed loop runs at the same time, with as many
// requests in flight, so both get the same share of the node whatever else the machine does.
func TestOverloadedOpenLoopReportsAchieved(t *testing.T) {
	timing(t)
	c := cluster(t)
	warm(t, c)
	const window = 6 * time.Second
	probe := spec("it_overload_probe", func(b *builders.BenchmarkRunBuilder) { b.Duration(2 * time.Second).Concurrency(32) })
	setUp(t, c, probe)
	// 20 times what the node does with 32 requests in flight: far more than it can.
	target := 20 * results.Merge(mustRun(t, c, probe)).OpsPerSecond
	// Both loops are writers of one run: they meet at one barrier, so their windows are the
	// same instants, and each keeps 32 requests in flight, so the node serves them alike. The
	// open loop is writer 1 of 2, which takes half the rate: twice the target is asked.
	closed := spec("it_overload", func(b *builders.BenchmarkRunBuilder) { b.Duration(window).Concurrency(32) })
	open := spec("it_overload", func(b *builders.BenchmarkRunBuilder) { b.Duration(window).Concurrency(32).Rate(2 * target) })
	setUp(t, c, closed)
	runID := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	var closedSum, openSum *summary.Summary
	var closedErr, openErr error
	cfg := func(s *cbv1.BenchmarkRunSpec, index int32) writer.Config {
		return writer.Config{Spec: s, Conn: connOptions(c), RunID: runID, Index: index, Writers: 2,
			BarrierTimeout: 30 * time.Second, Progress: testLog{t}, ProgressEvery: time.Second}
	}
	done := make(chan struct{})
	go func() { closedSum, closedErr = writer.Run(context.Background(), cfg(closed, 0)); close(done) }()
	began := time.Now()
	openSum, openErr = writer.Run(context.Background(), cfg(open, 1))
	took := time.Since(began)
	<-done
	if closedErr != nil || openErr != nil {
		t.Fatalf("closed loop: %v; open loop: %v", closedErr, openErr)
	}
	closedSums, sums := []*summary.Summary{closedSum}, []*summary.Summary{openSum}
	baseline := float64(results.Merge(closedSums).OpsPerSecond)
	res := results.Merge(sums)
	t.Logf("side by side: closed loop %.0f ops/s; open loop at %d ops/s achieved %d ops/s (%.3f of the closed loop), missed %d of %d, %d late over 1 ms, drain %d ms, run took %s",
		baseline, target, res.OpsPerSecond, float64(res.OpsPerSecond)/baseline, res.Schedule.Missed, res.Schedule.Due,
		res.Schedule.LateOver1ms, res.Schedule.DrainMillis, took.Round(time.Millisecond))
	// What the test guards against, a report of the target or of a drained backlog, is twenty
	// times what the node did. Two sessions to the same nodes serve alike only roughly: side by
	// side on this machine's two shared cores the open loop achieved 0.935 to 1.016 of the
	// closed loop, and 1.102 once in CI with the node at 1,700 ops/s and p99 240 ms. So the
	// bound is a factor of 1.5 either way, with the target checked apart.
	if ratio := float64(res.OpsPerSecond) / baseline; ratio < 1/1.5 || ratio > 1.5 {
		t.Errorf("achieved %d ops/s, %.2f of the closed loop's %.0f beside it", res.OpsPerSecond, ratio, baseline)
	}
	if res.OpsPerSecond*5 > target {
		t.Errorf("reported %d ops/s for a target of %d ops/s, twenty times what the node did with as many requests in flight", res.OpsPerSecond, target)
	}
	if res.Schedule.Missed == 0 || res.Schedule.LateOver1ms == 0 {
		t.Errorf("an overloaded open loop reported no missed (%d) or late (%d) operations", res.Schedule.Missed, res.Schedule.LateOver1ms)
	}
	// The barrier takes about 2 s; the bound is for connecting and the in-flight drain.
	if limit := window + 6*time.Second; took > limit {
		t.Errorf("the run took %s, more than %s: it drained a backlog", took, limit)
	}
	if msg, short := results.TargetShortfall(res); !short {
		t.Error("no shortfall reported for a run far below its target")
	} else {
		t.Log(msg)
	}
}

// At a rate the cluster reaches, the open loop achieves it, misses nothing and starts every
// operation on time: the schedule lag of an idle writer is tens of microseconds, not the
// millisecond of the runtime's timer grid.
func TestFixedRateReachesTarget(t *testing.T) {
	timing(t)
	c := cluster(t)
	warm(t, c)
	const rate = 500
	// Nodes just started compile their write path for half a minute, and their JIT threads
	// take the cores the writers wake on: warm them with a closed loop first, and measure
	// after a warm-up of the run's own.
	warm := spec("it_rate", func(b *builders.BenchmarkRunBuilder) { b.Duration(8 * time.Second).Concurrency(32) })
	setUp(t, c, warm)
	mustRun(t, c, warm)
	s := spec("it_rate", func(b *builders.BenchmarkRunBuilder) {
		b.Writers(2).Rate(rate).Warmup(3 * time.Second).Duration(5 * time.Second).Concurrency(32)
	})
	setUp(t, c, s)
	res := results.Merge(mustRun(t, c, s))
	sc := res.Schedule
	t.Logf("achieved %d of %d ops/s; lag p50 %d µs p99 %d µs max %d µs; response p50 %d µs, service p50 %d µs (difference %d µs); missed %d, late over 1 ms %d",
		res.OpsPerSecond, rate, sc.Lag.P50, sc.Lag.P99, sc.Lag.Max, res.Writes.Response.P50, res.Writes.Service.P50,
		res.Writes.Response.P50-res.Writes.Service.P50, sc.Missed, sc.LateOver1ms)
	if math.Abs(float64(res.OpsPerSecond-rate))/rate > 0.02 || sc.TargetOpsPerSecond != rate {
		t.Errorf("achieved %d ops/s of a %d target", res.OpsPerSecond, sc.TargetOpsPerSecond)
	}
	if sc.Missed != 0 {
		t.Errorf("%d operations missed at a reachable rate", sc.Missed)
	}
	// p50 tells the pacer from the runtime's timers (about 0.5 ms late on this machine). The
	// tail is the machine's, not the pacer's: a wake-up that finds both shared cores taken by
	// the nodes' JVMs waits for the OS (p99 176 µs to 9.2 ms here, and 16 ms once in CI right
	// after test/local, with 99 of 2,500 operations over 1 ms). It is reported, and bounded
	// only against a pacer that falls behind and catches up, whose lag grows with the window.
	if sc.Lag.P50 >= 100 || sc.Lag.P99 >= 250_000 {
		t.Errorf("schedule lag p50 %d µs, p99 %d µs: want under 100 µs and 250 ms", sc.Lag.P50, sc.Lag.P99)
	}
	if res.Writes.Response.P99 < res.Writes.Service.P99 {
		t.Errorf("response p99 %d µs below service p99 %d µs", res.Writes.Response.P99, res.Writes.Service.P99)
	}
	if _, short := results.TargetShortfall(res); short {
		t.Error("a run that reached its target was reported short")
	}
}

// Timeouts behind retries are counted per attempt: a frozen node times out attempts that a
// retry may then get through, so timeouts per attempt exceed timeouts per operation, and the
// operations that failed after every retry are in the failure latency and the maximum.
func TestTimeoutsBehindRetries(t *testing.T) {
	c := cluster(t)
	const timeout = 300 * time.Millisecond
	s := spec("it_retrytimeouts", func(b *builders.BenchmarkRunBuilder) {
		b.ReplicationFactor(1).WriteConsistency("ONE").RequestTimeout(timeout).Duration(time.Hour).Concurrency(8)
	})
	s.Writers.Retries = ptr.To[int32](3)
	setUp(t, c, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		time.Sleep(4 * time.Second)
		c.PauseNode(t, 2, 3*time.Second)
		time.Sleep(4 * time.Second)
		cancel()
	}()
	sums, _ := runWriters(ctx, t, c, s)
	res := results.Merge([]*summary.Summary{sums[0]})
	w := sums[0].Writes
	t.Logf("operations %d, failed %d (client timeouts %d); failed attempts: client timeouts %d; retries %d; per operation %s, per attempt %s; failure p50 %d µs, max %d µs",
		w.Operations(), w.Failed(), w.ClientTimeout, w.Attempts.ClientTimeout, w.Retries,
		res.TimeoutsPerOperation, res.TimeoutsPerAttempt, res.Writes.Failure.P50, res.Writes.Response.Max)
	if w.Attempts.ClientTimeout <= w.ClientTimeout {
		t.Errorf("attempts timed out %d times, operations %d: retried timeouts were not counted", w.Attempts.ClientTimeout, w.ClientTimeout)
	}
	if ratio(res.TimeoutsPerAttempt) <= ratio(res.TimeoutsPerOperation) {
		t.Errorf("timeouts per attempt %s not above per operation %s", res.TimeoutsPerAttempt, res.TimeoutsPerOperation)
	}
	if w.Failed() > 0 {
		if w.Failure == nil || w.Failure.Count() != uint64(w.Failed()) {
			t.Errorf("%d failed operations, %v in the failure sketch", w.Failed(), w.Failure)
		}
		// Four attempts of 300 ms each before an operation fails.
		if min := int64(4 * timeout / time.Microsecond); res.Writes.Response.Max < min || res.Writes.Failure.P50 < min {
			t.Errorf("failed operations missing from the latency: max %d µs, failure p50 %d µs, want at least %d", res.Writes.Response.Max, res.Writes.Failure.P50, min)
		}
	}
}

// Reads of keys that hold nothing are counted as misses, not as successes that found data.
func TestReadsOfAnEmptyTableMiss(t *testing.T) {
	c := cluster(t)
	s := spec("it_readmiss", func(b *builders.BenchmarkRunBuilder) { b.Mix(0, 1).Operations(2000) })
	s.Writers.Duration = nil
	setUp(t, c, s)
	res := results.Merge(mustRun(t, c, s))
	if r := res.Reads; r == nil || r.Operations != 2000 || r.Misses != 2000 || r.MissRatio != "1" {
		t.Fatalf("reads of an empty table: %+v", r)
	}
}

// Writers whose clocks disagree measure the disagreement against Cassandra's clock, start
// together all the same, and the merged window is not stretched by it.
func TestSkewedWriterClocks(t *testing.T) {
	c := cluster(t)
	const skew = 5 * time.Second
	s := spec("it_skew", func(b *builders.BenchmarkRunBuilder) { b.Writers(2).Duration(3 * time.Second) })
	setUp(t, c, s)
	sums := mustRun(t, c, s, func(cfg *writer.Config) {
		if cfg.Index == 1 {
			cfg.Now = func() time.Time { return time.Now().Add(skew) }
		}
	})
	res := results.Merge(sums)
	t.Logf("offsets %d and %d ms (± %d, %d); start spread %d ms; window %d ms", sums[0].OffsetMillis, sums[1].OffsetMillis,
		sums[0].OffsetErrorMillis, sums[1].OffsetErrorMillis, res.StartSpreadMillis, res.WindowMillis)
	// Each offset is measured to within half a round trip, which each writer reports; on a
	// loaded machine a round trip may take more than the 50 ms allowed beside it.
	slack := 50 + sums[0].OffsetErrorMillis + sums[1].OffsetErrorMillis
	if d := sums[1].OffsetMillis - sums[0].OffsetMillis - skew.Milliseconds(); d < -slack || d > slack {
		t.Errorf("writer 1's clock is %s ahead; measured offsets %d and %d ms", skew, sums[1].OffsetMillis, sums[0].OffsetMillis)
	}
	if res.MaxClockOffsetMillis < skew.Milliseconds()-slack {
		t.Errorf("largest clock offset %d ms, want about %d", res.MaxClockOffsetMillis, skew.Milliseconds())
	}
	// The window runs from the first send to the last completion, so it may pass the 3 s by
	// the operations still in flight at the end (p99 above 100 ms on a loaded machine, and a
	// 3202 ms window seen in CI); a skew moving it would add whole seconds.
	if res.StartSpreadMillis > 100+slack || res.WindowMillis > 3000+skew.Milliseconds()/5 || res.WindowMillis < 2800 {
		t.Errorf("start spread %d ms, window %d ms: the skew moved the window", res.StartSpreadMillis, res.WindowMillis)
	}
}

// warmed is set once warm has loaded the shared nodes in this test process.
var warmed sync.Once

// warm loads the shared nodes with a closed loop for a minute before the first timing test
// of the process: the timing stage of make test may start on nodes just restarted (after
// test/local, or from nothing), whose JIT compiles the write path for a minute, and on such
// nodes the closed and open loops measured 11 and 13% apart and the schedule lag's p99 was
// 14 to 23 ms, against 0.986 and 1 ms on warm nodes.
func warm(t *testing.T, c *cassandra.Cluster) {
	warmed.Do(func() {
		s := spec("it_warm", func(b *builders.BenchmarkRunBuilder) { b.Duration(time.Minute).Concurrency(32) })
		setUp(t, c, s)
		mustRun(t, c, s)
	})
}

func ratio(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// Two real runs of the same spec are not told apart by compare: run side by side, so that
// whatever the machine does weighs on both alike, their throughput over the timeline's
// intervals and their latency percentiles differ by noise only.
func TestCompareTwoRunsOfTheSameSpec(t *testing.T) {
	timing(t)
	c := cluster(t)
	warm(t, c)
	side := func(keyspace string) *cbv1.BenchmarkRunSpec {
		s := spec(keyspace, func(b *builders.BenchmarkRunBuilder) {
			b.Duration(8 * time.Second).Warmup(2 * time.Second).Concurrency(8)
		})
		setUp(t, c, s)
		return s
	}
	a, b := side("it_compare_a"), side("it_compare_b")
	var sa, sb []*summary.Summary
	done := make(chan struct{})
	go func() { sa = mustRun(t, c, a); close(done) }()
	sb = mustRun(t, c, b)
	<-done
	run := func(name string, sums []*summary.Summary) *cbv1.BenchmarkRun {
		r := &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{Results: results.Merge(sums)}}
		r.Name = name
		return r
	}
	cmp := compare.Compare(compare.Side{Name: "a", Runs: []*cbv1.BenchmarkRun{run("a", sa)}},
		compare.Side{Name: "b", Runs: []*cbv1.BenchmarkRun{run("b", sb)}}, 0.01)
	var out strings.Builder
	_ = compare.Text(&out, []compare.Comparison{cmp})
	t.Log("\n" + out.String())
	for _, r := range cmp.Rows {
		if r.Significant {
			t.Errorf("%s: %s between two runs of the same spec (%+.1f%%)", r.Metric, r.Verdict, r.DiffPercent)
		}
		if r.Metric == "ops/s" && r.Verdict != compare.NoDifference {
			t.Errorf("ops/s: %s (%s): the runs' timelines should give eight intervals each", r.Verdict, r.Method)
		}
	}
}
