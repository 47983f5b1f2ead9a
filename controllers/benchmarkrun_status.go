package controllers

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
)

// Pure status computation: what the conditions mean, which phase they add up to, and when the
// run's deadlines fall.

// outcome is how a run ends once its datacenter is given back.
type outcome struct {
	succeeded bool
	reason    string
	message   string
	// since is when the outcome was reached: giving back is bounded from then.
	since time.Time
}

// failedReasons are condition reasons after which the run cannot succeed.
var failedReasons = map[string]bool{
	cbv1.ReasonPrepareDeadlineExceeded: true,
	cbv1.ReasonRunDeadlineExceeded:     true,
	cbv1.ReasonSetupFailed:             true,
	cbv1.ReasonSettingsInvalid:         true,
	cbv1.ReasonWriterFailed:            true,
	cbv1.ReasonInvalidSpec:             true,
	cbv1.ReasonDatacenterInvalid:       true,
	cbv1.ReasonDatacenterUnsuitable:    true,
	cbv1.ReasonDatacenterDrifted:       true,
	cbv1.ReasonRefused:                 true,
	cbv1.ReasonImageNotAllowed:         true,
	cbv1.ReasonPodsNotStarting:         true,
	cbv1.ReasonSettingNotAllowed:       true,
	cbv1.ReasonLockLost:                true,

	cbv1.ReasonDatacenterManagedByK8ssandra: true,
}

// pendingOutcome tells whether the run's work is over, and how it went. Nil means the run
// still has work to do.
func pendingOutcome(run *cbv1.BenchmarkRun) *outcome {
	for _, t := range []string{cbv1.ConditionDatacenterReady, cbv1.ConditionSchemaReady, cbv1.ConditionWritersComplete} {
		c := meta.FindStatusCondition(run.Status.Conditions, t)
		if c != nil && c.Status == metav1.ConditionFalse && failedReasons[c.Reason] {
			return &outcome{reason: c.Reason, message: c.Message, since: c.LastTransitionTime.Time}
		}
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionWritersComplete); c != nil && c.Status == metav1.ConditionTrue {
		return &outcome{succeeded: true, reason: cbv1.ReasonSucceeded, message: "every writer finished and reported; results are in status.results",
			since: c.LastTransitionTime.Time}
	}
	return nil
}

// setCondition sets a condition stamped with the run's generation and tells whether its
// status or reason changed: a state change worth an event.
func setCondition(run *cbv1.BenchmarkRun, now time.Time, t string, status metav1.ConditionStatus, reason, message string) bool {
	return conditions.Set(&run.Status.Conditions, run.Generation, now, t, status, reason, message)
}

// runStages are the conditions of the run's stages, in order: a finished run has each, saying
// how that stage ended.
var runStages = []string{
	cbv1.ConditionDatacenterReady, cbv1.ConditionSchemaReady, cbv1.ConditionWritersComplete,
	cbv1.ConditionDatacenterRestored,
}

// lifecycleConditions are the conditions the run's stages set; kstatus' are derived from them.
var lifecycleConditions = append(append([]string(nil), runStages...), cbv1.ConditionSucceeded)

// derive fills in what status derives from the conditions: the phase and kstatus' Ready,
// Reconciling and Stalled.
func derive(run *cbv1.BenchmarkRun, now time.Time) {
	run.Status.ObservedGeneration = run.Generation
	run.Status.Phase = phase(run)
	var latest *metav1.Condition
	for _, t := range lifecycleConditions {
		c := meta.FindStatusCondition(run.Status.Conditions, t)
		if c != nil && (latest == nil || !c.LastTransitionTime.Before(&latest.LastTransitionTime)) {
			latest = c
		}
	}
	msg := "waiting to start"
	if latest != nil {
		msg = latest.Message
	}
	conditions.Kstatus(&run.Status.Conditions, run.Generation, now, string(run.Status.Phase), msg)
}

// phase derives the one-word phase from the conditions.
func phase(run *cbv1.BenchmarkRun) cbv1.Phase {
	conds := run.Status.Conditions
	if c := meta.FindStatusCondition(conds, cbv1.ConditionSucceeded); c != nil {
		if c.Status == metav1.ConditionTrue {
			return cbv1.PhaseSucceeded
		}
		return cbv1.PhaseFailed
	}
	if pendingOutcome(run) != nil || meta.FindStatusCondition(conds, cbv1.ConditionDatacenterRestored) != nil {
		return cbv1.PhaseRestoring
	}
	if meta.FindStatusCondition(conds, cbv1.ConditionWritersComplete) != nil {
		return cbv1.PhaseRunning
	}
	if meta.FindStatusCondition(conds, cbv1.ConditionSchemaReady) != nil {
		return cbv1.PhaseSettingUp
	}
	if c := meta.FindStatusCondition(conds, cbv1.ConditionDatacenterReady); c != nil {
		switch c.Reason {
		case cbv1.ReasonDatacenterBusy:
			return cbv1.PhaseQueued
		case cbv1.ReasonDatacenterNotFound, cbv1.ReasonDatacenterNotOptedIn, cbv1.ReasonNamespaceNotAllowed, cbv1.ReasonDisruptionsNotAllowed:
			return cbv1.PhasePending
		}
		return cbv1.PhasePreparing
	}
	return cbv1.PhasePending
}

// prepareTimeout is the run's bound on waiting for and preparing its datacenter, and on
// giving it back.
func prepareTimeout(run *cbv1.BenchmarkRun) time.Duration {
	if d := run.Spec.Deadlines.Prepare; d != nil && d.Duration > 0 {
		return d.Duration
	}
	// Only a run built in Go, which no API server defaulted, gets here.
	return cbv1.DefaultPrepareDeadline
}

// findDeadline bounds waiting for the datacenter to exist and admit the run; it counts from
// the run's creation, because GitOps may apply the run before its datacenter.
func findDeadline(run *cbv1.BenchmarkRun) time.Time {
	return run.CreationTimestamp.Add(prepareTimeout(run))
}

// prepareDeadline bounds resizing, restarting and setting up; it counts from taking the
// datacenter, so time spent queued behind other runs does not count against a run.
func prepareDeadline(run *cbv1.BenchmarkRun) time.Time {
	if run.Status.StartTime == nil {
		return findDeadline(run)
	}
	return run.Status.StartTime.Add(prepareTimeout(run))
}

// runTimeout bounds the writers from their Job's creation to the last one's exit.
func runTimeout(run *cbv1.BenchmarkRun) time.Duration {
	w := run.Spec.Writers
	if d := run.Spec.Deadlines.Run; d != nil && d.Duration > 0 {
		return d.Duration
	}
	// A load stage writes rows at whatever rate the cluster takes them: its time cannot be
	// known from the spec, so it gets an hour, and a longer load sets deadlines.run.
	var load time.Duration
	if d := run.Spec.Workload.Dataset; d != nil && d.Load {
		load = time.Hour
	}
	if w.Duration == nil {
		return 2*time.Hour + load
	}
	var warmup time.Duration
	if w.Warmup != nil {
		warmup = w.Warmup.Duration
	}
	window := w.Duration.Duration
	if c := run.Spec.Capacity; c != nil {
		window = capacityWindow(c, window)
	}
	return load + warmup + window + 10*time.Minute
}

// progress estimates how far the measured window is, from when the last writer started:
// writers meet at a barrier after all have started, then warm up. Elapsed time is rounded
// down to the update interval, so however many events wake the controller, progress changes
// (and is written) once per interval.
func progress(run *cbv1.BenchmarkRun, lastStart, now time.Time, interval time.Duration) *cbv1.Progress {
	if lastStart.IsZero() {
		return nil
	}
	w := run.Spec.Writers
	begin := lastStart
	if w.Warmup != nil {
		begin = begin.Add(w.Warmup.Duration)
	}
	elapsed := max(now.Sub(begin), 0)
	if interval > 0 {
		elapsed -= elapsed % interval
	}
	p := &cbv1.Progress{ElapsedSeconds: int64(elapsed / time.Second)}
	if w.Duration != nil && w.Duration.Duration > 0 {
		p.Percent = int32(min(99, int64(elapsed*100/w.Duration.Duration)))
	}
	return p
}
