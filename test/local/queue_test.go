package local

import (
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Two runs applied at once on one datacenter run one after the other: their measured windows
// do not overlap.
func TestTwoRunsOnOneDatacenterTakeTurns(t *testing.T) {
	names := []string{"queue-a", "queue-b"}
	env, ctx := scenario(t, names...)
	for _, name := range names {
		create(ctx, t, env, newRun(env, name).Writers(1).Concurrency(4).Rate(200).Duration(10*time.Second).Obj())
	}
	var runs []*cbv1.BenchmarkRun
	for _, name := range names {
		run := waitFinished(ctx, t, env, name, 5*time.Minute)
		if run.Status.Phase != cbv1.PhaseSucceeded || run.Status.Results == nil {
			t.Fatalf("%s: phase %s, want Succeeded with results; conditions:\n%s", name, run.Status.Phase, conditions(run))
		}
		runs = append(runs, run)
	}
	a, b := runs[0].Status, runs[1].Status
	if b.Results.WindowStart.Before(&a.Results.WindowStart) {
		a, b = b, a
	}
	if b.Results.WindowStart.Before(&a.Results.WindowEnd) {
		t.Errorf("measured windows overlap: [%s, %s] and [%s, %s]", a.Results.WindowStart, a.Results.WindowEnd, b.Results.WindowStart, b.Results.WindowEnd)
	}
	// Both are stored to the second.
	if b.StartTime.Add(time.Second).Before(a.CompletionTime.Time) {
		t.Errorf("the second run took the datacenter at %s, before the first finished at %s", b.StartTime, a.CompletionTime)
	}
	t.Logf("windows: [%s, %s] then [%s, %s]", a.Results.WindowStart.Format(time.TimeOnly), a.Results.WindowEnd.Format(time.TimeOnly),
		b.Results.WindowStart.Format(time.TimeOnly), b.Results.WindowEnd.Format(time.TimeOnly))
	checkRestored(ctx, t, env)
}
