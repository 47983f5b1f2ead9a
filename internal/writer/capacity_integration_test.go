package writer_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// capacitySpec is a search from rate with steps of 1.5 s in 3 parts and no extension.
func capacitySpec(t *testing.T, keyspace string, rate int64, p99 time.Duration, steps int32, more ...func(*builders.BenchmarkRunBuilder)) *cbv1.BenchmarkRunSpec {
	t.Helper()
	s := spec(keyspace, func(b *builders.BenchmarkRunBuilder) {
		b.Writers(2).Rate(rate).Duration(1500 * time.Millisecond)
		for _, f := range more {
			f(b)
		}
	})
	none := int32(0)
	s.Capacity = &cbv1.CapacitySpec{Objective: cbv1.CapacityObjective{P99: metav1.Duration{Duration: p99}},
		MaxSteps: steps, Intervals: 3, MaxExtensions: &none, DebtWaitLimit: &metav1.Duration{Duration: 20 * time.Second}}
	defaulted, err := admission.DefaultRunSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return defaulted
}

func found(t *testing.T, sums []*summary.Summary) *cbv1.CapacityResults {
	t.Helper()
	r := results.Merge(sums)
	if r == nil || r.Capacity == nil {
		t.Fatalf("no capacity in the results: %+v", sums[0])
	}
	return r.Capacity
}

// TestCapacitySearchClimbs runs a search whose objective every step meets: it doubles the rate
// each step until its step limit, and every operation the writers did in its steps is in the
// steps' figures, which writer 0 read back from Cassandra.
func TestCapacitySearchClimbs(t *testing.T) {
	c := cluster(t)
	s := capacitySpec(t, "it_capacity_climb", 40, time.Minute, 3)
	setUp(t, c, s)
	sums := mustRun(t, c, s)
	got := found(t, sums)
	if got.Stop != cbv1.CapacityStepLimit || got.OpsPerSecond != 160 || got.MissedOpsPerSecond != 0 {
		t.Fatalf("capacity %d (%s), missed %d; want 160 (StepLimit), none missed", got.OpsPerSecond, got.Stop, got.MissedOpsPerSecond)
	}
	var stepOps, writerOps int64
	for i, st := range got.Steps {
		want := int64(40) << i
		if st.TargetOpsPerSecond != want || st.Outcome != cbv1.CapacityMet || st.Runs != 1 || st.DebtWaitMillis != 0 {
			t.Errorf("step %d: %+v; want %d ops/s met in one run, no debt wait", i+1, st, want)
		}
		// 1.5 s at the rate, less what the open loop may miss.
		if due := want * 3 / 2; st.Operations < due*9/10 || st.Operations > due {
			t.Errorf("step %d: %d operations, want about %d", i+1, st.Operations, due)
		}
		stepOps += st.Operations
	}
	for _, sum := range sums {
		writerOps += sum.Writes.OK + sum.Writes.WriteTimeout + sum.Writes.ClientTimeout + sum.Writes.Other + sum.Writes.Unavailable + sum.Writes.Overloaded
	}
	if len(got.Steps) != 3 || stepOps != writerOps {
		t.Errorf("%d steps with %d operations; the writers did %d", len(got.Steps), stepOps, writerOps)
	}
}

// TestCapacitySearchRunsWhatASaturatedStepAchieved asks two writers with one request in flight
// each for 40,000 ops/s, more than they can send to any node: the first step misses with
// starts unsent and completes what one request at a time allows, and the second step runs
// that rate, not half the first's.
func TestCapacitySearchRunsWhatASaturatedStepAchieved(t *testing.T) {
	c := cluster(t)
	s := capacitySpec(t, "it_capacity_saturated", 40000, 200*time.Millisecond, 2, func(b *builders.BenchmarkRunBuilder) {
		b.Concurrency(1)
	})
	setUp(t, c, s)
	got := found(t, mustRun(t, c, s))
	if len(got.Steps) != 2 {
		t.Fatalf("%d steps, want 2: %+v", len(got.Steps), got.Steps)
	}
	first, second := got.Steps[0], got.Steps[1]
	t.Logf("first step: %d ops/s asked, %d completed, %d starts unsent, p99 %d µs", first.TargetOpsPerSecond, first.OpsPerSecond, first.Missed, first.P99Micros)
	if first.Outcome != cbv1.CapacityMissed || first.Missed == 0 || first.OpsPerSecond == 0 || first.OpsPerSecond >= first.TargetOpsPerSecond*98/100 {
		t.Fatalf("the first step did not saturate: %+v", first)
	}
	if second.TargetOpsPerSecond != first.OpsPerSecond {
		t.Errorf("the second step ran %d ops/s, want what the first completed, %d", second.TargetOpsPerSecond, first.OpsPerSecond)
	}
}

// TestCapacitySearchNothingMet runs a search whose objective no step can meet (p99 under a
// microsecond): it halves the rate down to 1 operation per second, waits after every step
// for the nodes' debt, and says at the end that nothing met it.
func TestCapacitySearchNothingMet(t *testing.T) {
	c := cluster(t)
	s := capacitySpec(t, "it_capacity_none", 8, time.Microsecond, 10)
	setUp(t, c, s)
	sums := mustRun(t, c, s)
	got := found(t, sums)
	if got.Stop != cbv1.CapacityNothingMet || got.OpsPerSecond != 0 || got.MissedOpsPerSecond != 1 {
		t.Fatalf("capacity %d (%s), missed %d; want 0 (NothingMet), 1 missed", got.OpsPerSecond, got.Stop, got.MissedOpsPerSecond)
	}
	var targets []int64
	for i, st := range got.Steps {
		targets = append(targets, st.TargetOpsPerSecond)
		if st.Outcome != cbv1.CapacityMissed || !strings.HasPrefix(st.Reason, "p99 ") || st.DebtOutstanding != "" {
			t.Errorf("step %d: %+v; want it missed on p99 and the debt paid back", i+1, st)
		}
	}
	if want := []int64{8, 4, 2, 1}; !equal(targets, want) {
		t.Errorf("rates tried %v, want %v", targets, want)
	}
	if got.Knee == nil || got.Knee.Verdict == "" {
		t.Fatalf("no verdict at the knee: %+v", got.Knee)
	}
	// The node runs on this machine: each step watched its CPU, as a run's window does, and
	// each writer measured its own, so the verdict at the knee knows what both used (here, at
	// 1 op/s, a little).
	ev := strings.Join(got.Knee.Evidence, "; ")
	t.Logf("the knee: %s: %s", got.Knee.Verdict, ev)
	if got.Knee.Verdict == cbv1.BottleneckUnclear && (!strings.Contains(ev, "the busiest node") || !strings.Contains(ev, "the busiest writer used")) {
		t.Errorf("the knee's verdict does not say what the node and the writers used: %s: %s", got.Knee.Verdict, ev)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
