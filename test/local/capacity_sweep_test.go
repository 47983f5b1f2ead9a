package local

import (
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/capacity"
)

// capacityVsSweep asks for the measurement below; it takes about 45 minutes, so make test
// does not run it.
const capacityVsSweep = "CASSBENCH_CAPACITY_VS_SWEEP"

// The search against brute force, through the operator, on the environment's node: a
// BenchmarkRun with the capacity search of hack/capacity/pinned.yaml finds C; then a
// BenchmarkSweep (restore atEnd: the datacenter is held once, as the search holds it) runs
// writers.rate from 60% to 140% of C in steps of 2.5% of C, each point as long as the search's
// steps ran on average, and judges each point by the search's objective with the search's own
// rule (capacity.Judge). The knee is the highest rate whose objective held. Both answers and
// both wall times (from creating the object to its Succeeded condition) are logged, with what
// every kind of process of the environment used of the CPU over the search's window and over
// each point's (the writers share their core with the control plane); nothing is asserted on
// time. A measurement, run by hand, with the node held to half of one core and
// everything else on the other (holdNodes), as hack/capacity-vs-sweep.sh holds it locally:
//
//	CASSBENCH_CAPACITY_VS_SWEEP=1 CASSBENCH_NODE_CORES=1 CASSBENCH_NODE_CPU=0.5 flock /work/test-local.lock \
//	  make test-local LOCAL_RUN='^TestCapacitySearchAgainstAFixedRateSweep$'
func TestCapacitySearchAgainstAFixedRateSweep(t *testing.T) {
	if os.Getenv(capacityVsSweep) == "" {
		t.Skipf("a 45-minute measurement: set %s=1 to run it", capacityVsSweep)
	}
	const name = "capvssweep"
	env, ctx := scenario(t, name)
	holdNodes(t)
	one := int32(1)
	tpm := int64(1000)
	// hack/capacity/pinned.yaml: why these figures.
	objective := cbv1.CapacityObjective{P99: metav1.Duration{Duration: 500 * time.Millisecond}, TimeoutsPerMillion: &tpm}
	const step = 20 * time.Second
	search := newRun(env, name).Writers(2).Concurrency(4096).Rate(4000).
		Warmup(10 * time.Second).Duration(step).RequestTimeout(5 * time.Second).Obj()
	search.Spec.Writers.Retries = new(int32)
	search.Spec.Capacity = &cbv1.CapacitySpec{Objective: objective, Intervals: 10, MaxSteps: 16, MaxExtensions: &one,
		DebtWaitLimit: &metav1.Duration{Duration: time.Minute}}
	t.Logf("load before the search: %s", loadAverage())
	// What else ran: the writers share a core with the control plane, the manager and the
	// operator, so each window says what every kind of process used of the CPU.
	cpu := recordCPU(2 * time.Second)
	defer cpu.Stop()
	t0 := time.Now()
	create(ctx, t, env, search)
	search = waitFinished(t.Context(), t, env, name, 30*time.Minute) // longer than the scenario's context
	searchWall := time.Since(t0)
	if search.Status.Phase != cbv1.PhaseSucceeded || search.Status.Results == nil || search.Status.Results.Capacity == nil {
		t.Fatalf("search: phase %s; conditions:\n%s", search.Status.Phase, conditions(search))
	}
	c := search.Status.Results.Capacity
	// The sweep runs each rate once, as long as the search's first tries ran on average; a
	// confirmation (a missed rate tried again) runs one round by design.
	var rounds, firstRounds, firsts int32
	tried := map[int64]bool{}
	for i, st := range c.Steps {
		rounds += st.Runs
		if tried[st.TargetOpsPerSecond] && st.Runs != 1 {
			t.Errorf("step %d confirmed %d ops/s in %d rounds, want one", i+1, st.TargetOpsPerSecond, st.Runs)
		}
		if !tried[st.TargetOpsPerSecond] {
			firstRounds += st.Runs
			firsts++
		}
		tried[st.TargetOpsPerSecond] = true
		t.Logf("search step %d: %d asked, %d done, p99 %d us, %s %s (%s)", i+1, st.TargetOpsPerSecond, st.OpsPerSecond, st.P99Micros, st.Outcome, st.Reason, st.Bottleneck)
	}
	t.Logf("search: capacity %d ops/s (%s, missed %d) in %d steps, %d rounds of %s, wall %s; knee %+v; load after: %s",
		c.OpsPerSecond, c.Stop, c.MissedOpsPerSecond, len(c.Steps), rounds, step, searchWall.Round(100*time.Millisecond), c.Knee, loadAverage())
	if res := search.Status.Results; res != nil {
		t.Logf("search: CPU (cores) over its window: %s", cpu.during(res.WindowStart.Time, res.WindowEnd.Time))
	}
	if c.OpsPerSecond <= 0 {
		t.Fatal("the search met nothing: no knee to compare")
	}

	// The sweep: the search's spec without capacity, one point per rate.
	tmpl := search.Spec.DeepCopy()
	tmpl.Capacity = nil
	tmpl.Writers.Duration = &metav1.Duration{Duration: step * time.Duration(firstRounds) / time.Duration(firsts)}
	t.Logf("sweep: each point %s, the mean of the search's %d first tries", tmpl.Writers.Duration.Duration, firsts)
	axis := cbv1.SweepAxis{Path: "writers.rate"}
	var rates []int64
	for pct10 := int64(600); pct10 <= 1400; pct10 += 25 {
		r := c.OpsPerSecond * pct10 / 1000
		rates = append(rates, r)
		axis.Values = append(axis.Values, intstr.FromInt32(int32(r)))
	}
	sw := &cbv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Name: name + "-sweep", Namespace: env.Namespace},
		Spec: cbv1.BenchmarkSweepSpec{Template: *tmpl, Axes: []cbv1.SweepAxis{axis}, Restore: cbv1.RestoreAtEnd}}
	t0 = time.Now()
	if err := env.Client.Create(ctx, sw); err != nil {
		t.Fatal(err)
	}
	waitSweep(t, env, sw, 60*time.Minute)
	sweepWall := time.Since(t0)
	t.Logf("sweep: CPU (cores) from creation to Succeeded: %s", cpu.during(t0, t0.Add(sweepWall)))
	knee := sweepKnee(t, env, sw.Name, rates, objective, cpu)
	t.Logf("brute force: knee %d ops/s over %d runs of %s from 60%% to 140%% of %d in steps of 2.5%%, wall %s; load after: %s",
		knee, len(rates), tmpl.Writers.Duration.Duration, c.OpsPerSecond, sweepWall.Round(100*time.Millisecond), loadAverage())
	if knee == rates[len(rates)-1] {
		t.Logf("the sweep's highest rate met its objective: its knee is above the range, not inside it")
	}
	if knee > 0 {
		t.Logf("search/knee: %.3f; wall search/sweep: %.3f", float64(c.OpsPerSecond)/float64(knee), searchWall.Seconds()/sweepWall.Seconds())
	}
	checkRestored(t.Context(), t, env) // the scenario's context lasts 15 minutes, the sweep longer
}

// sweepKnee judges every point of the sweep by the objective and returns the highest rate met.
func sweepKnee(t *testing.T, env *Env, sweep string, rates []int64, o cbv1.CapacityObjective, cpu *cpuRecorder) int64 {
	t.Helper()
	obj := capacity.Objective{P99: o.P99.Duration, TimeoutsPerMillion: *o.TimeoutsPerMillion, MaxMissedPerMillion: 10000}
	var knee int64
	for i, rate := range rates {
		run := &cbv1.BenchmarkRun{}
		key := client.ObjectKey{Namespace: env.Namespace, Name: fmt.Sprintf("%s-%d-0", sweep, i)}
		if err := env.Client.Get(t.Context(), key, run); err != nil {
			t.Fatalf("point %d (%d ops/s): %v", i, rate, err)
		}
		res := run.Status.Results
		if run.Status.Phase != cbv1.PhaseSucceeded || res == nil || res.Writes == nil || res.Schedule == nil {
			t.Errorf("point %d (%d ops/s): phase %s, no results to judge", i, rate, run.Status.Phase)
			continue
		}
		f := capacity.Figures{Due: res.Schedule.Due, Missed: res.Schedule.Missed, Operations: res.Operations,
			Timeouts: res.Errors.WriteTimeout + res.Errors.ReadTimeout + res.Errors.ClientTimeout,
			P99:      time.Duration(res.Writes.Response.P99) * time.Microsecond}
		met, why := capacity.Judge(obj, f)
		if met {
			knee = max(knee, rate)
		}
		t.Logf("point %d: %d asked, %d done, p99 %d us, %d timeouts, %d of %d starts missed: met %t %s; CPU (cores) over its window: %s",
			i, rate, res.OpsPerSecond, res.Writes.Response.P99, f.Timeouts, f.Missed, f.Due, met, why, cpu.during(res.WindowStart.Time, res.WindowEnd.Time))
	}
	return knee
}

func waitSweep(t *testing.T, env *Env, sw *cbv1.BenchmarkSweep, timeout time.Duration) {
	t.Helper()
	got := &cbv1.BenchmarkSweep{}
	deadline := time.Now().Add(timeout)
	for {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(sw), got); err == nil &&
			meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sweep not finished within %s; conditions:\n%s", timeout, sweepConditions(got))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("sweep phase %s; conditions:\n%s", got.Status.Phase, sweepConditions(got))
	}
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return string(b[:len(b)-1])
}
