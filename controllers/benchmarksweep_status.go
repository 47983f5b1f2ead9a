package controllers

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/sweep"
)

// Pure status computation for sweeps: the table and its summary, the final outcome, the
// phase, and the point-level changes worth an event.

// sweepFinished tells whether the sweep has its final Succeeded condition.
func sweepFinished(sw *cbv1.BenchmarkSweep) bool {
	return meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionSucceeded) != nil
}

// settleSweep makes a finished sweep's conditions tell how each of its stages ended, as a
// run's do (conditions.Settle): a sweep that failed while it waited for its datacenter must
// not go on saying it waits. The datacenter's stages are the sweep's only when it holds the
// datacenter (restore atEnd).
func settleSweep(sw *cbv1.BenchmarkSweep, now time.Time) {
	stages := []string{cbv1.ConditionValid}
	if sweep.HoldsDatacenter(sw) {
		stages = append(stages, cbv1.ConditionDatacenterLocked, cbv1.ConditionDatacenterRestored)
	}
	conditions.Settle(&sw.Status.Conditions, sw.Generation, now, "sweep", stages)
}

// sweepPhase derives the one-word phase from the conditions.
func sweepPhase(sw *cbv1.BenchmarkSweep) cbv1.Phase {
	if c := meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionSucceeded); c != nil {
		if c.Status == metav1.ConditionTrue {
			return cbv1.PhaseSucceeded
		}
		return cbv1.PhaseFailed
	}
	if meta.IsStatusConditionTrue(sw.Status.Conditions, cbv1.ConditionValid) {
		return cbv1.PhaseRunning
	}
	return cbv1.PhasePending
}

// tabulate writes the table, the counts, the progress and the best point into status.
func tabulate(sw *cbv1.BenchmarkSweep, o sweep.Observed, d sweep.Decision) {
	rows := sweep.Table(o, d.Stopped != nil)
	c := sweep.Count(rows)
	sw.Status.Table = rows
	sw.Status.Points, sw.Status.Completed, sw.Status.Failed = c.Points, c.Completed, c.Failed
	sw.Status.Progress = c.Progress()
	sw.Status.Best = sweep.Best(sw.Spec.Axes, rows, sw.Spec.BestBy, sw.Spec.MaxP99Micros)
}

// sweepOutcome is the final condition of a sweep that is done.
func sweepOutcome(sw *cbv1.BenchmarkSweep, d sweep.Decision) (metav1.ConditionStatus, string, string) {
	if d.Stopped != nil {
		return metav1.ConditionFalse, cbv1.ReasonStoppedOnFailure,
			fmt.Sprintf("BenchmarkRun %s failed and spec.stopOnFailure is set: the sweep stopped with %s; the table has what was measured",
				d.Stopped.Name, sw.Status.Progress)
	}
	if sw.Status.Failed > 0 {
		return metav1.ConditionFalse, cbv1.ReasonPointsFailed,
			fmt.Sprintf("%d of %d points failed (see status.table for why); the other points' results are in the table",
				sw.Status.Failed, sw.Status.Points)
	}
	msg := fmt.Sprintf("all %d points succeeded; results are in status.table", sw.Status.Points)
	if sw.Status.Best != nil {
		msg += "; best by " + string(sw.Status.Best.By) + ": " + sw.Status.Best.Summary
	}
	return metav1.ConditionTrue, cbv1.ReasonSucceeded, msg
}

// pointEvents compares the table before and after this pass: one event per point that
// finished.
func pointEvents(axes []cbv1.SweepAxis, before, after []cbv1.SweepPoint) []statusEvent {
	old := map[int32]cbv1.PointOutcome{}
	for _, r := range before {
		old[r.Point] = r.Outcome
	}
	var out []statusEvent
	for _, r := range after {
		if old[r.Point] == r.Outcome {
			continue
		}
		what := fmt.Sprintf("point %d (%s)", r.Point, sweep.Assignments(axes, r.Values))
		switch r.Outcome {
		case cbv1.PointSucceeded:
			out = append(out, statusEvent{reason: cbv1.ReasonPointSucceeded, action: "RunPoint",
				message: fmt.Sprintf("%s succeeded: %d ops/s, p99 %dus", what, r.OpsPerSecond, r.P99)})
		case cbv1.PointFailed:
			out = append(out, statusEvent{reason: cbv1.ReasonPointFailed, action: "RunPoint", warning: true,
				message: fmt.Sprintf("%s failed: %s", what, r.Message)})
		}
	}
	return out
}
