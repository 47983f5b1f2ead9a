package controllers

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/summary"
)

// The Job stages before the writers: preflight (every cassandra-yaml setting exists) and
// setup (schema, versions, verified settings), both one Job whose pods report once.

// jobStage is a stage run by one Job whose pod reports once: preflight and setup.
type jobStage struct {
	component string
	// stage is the stage's condition; running its reason while the Job runs, doing what the
	// Job does in words ("is checking ..."), for the condition's message.
	stage, running, doing string
	// late names what did not finish, should the prepare deadline pass.
	late string
	// kept says what a failure leaves.
	kept  string
	build func() (*batchv1.Job, error)
}

// runJob creates the stage's Job and waits for it and its report. done tells whether the Job
// finished and what it reported was read: failure is then empty when it succeeded. Until then
// r says why the run waits, or that it failed.
func (d *decider) runJob(js jobStage) (report *summary.SetupReport, failure string, r stageResult, done bool) {
	job, r, ok := d.ensureJob(js.component, js.stage, js.build)
	if !ok {
		return nil, "", r, false
	}
	if finished, _ := jobs.Finished(job); !finished {
		if late, ok := d.expired(js.late); ok {
			return nil, "", late, false
		}
		note, r, failed := d.notStarting(job, js.component, js.stage, js.kept)
		if failed {
			return nil, "", r, false
		}
		r.set(js.stage, metav1.ConditionFalse, js.running, fmt.Sprintf("Job %s %s%s", job.Name, js.doing, note))
		r.requeue(prepareDeadline(d.run).Sub(d.o.now))
		return nil, "", r, false
	}
	report, failure = setupReport(job, d.o.pods[js.component], js.component)
	if wait, ok := d.awaitReport(job, report == nil && failure != "", js.stage, js.running); ok {
		return nil, "", wait, false
	}
	return report, failure, r, true
}

// preflight checks, before the datacenter is changed, that every requested cassandra-yaml
// setting exists: cass-operator writes unknown keys into cassandra.yaml unchecked, and
// Cassandra then refuses to start, so a typo would otherwise stall a rolling restart until
// the prepare deadline instead of failing at once with the setting named.
func (d *decider) preflight(t jobs.Target) (stageResult, bool) {
	run := d.run
	if settings, err := datacenter.CassandraYaml(run.Spec.Datacenter); err != nil || len(settings) == 0 {
		return stageResult{}, true
	}
	_, failure, r, done := d.runJob(jobStage{component: jobs.ComponentPreflight, stage: cbv1.ConditionDatacenterReady,
		running: cbv1.ReasonCheckingSettings, late: "the settings check did not finish", kept: "the datacenter was not changed",
		doing: "is checking that every cassandra-yaml setting exists before the datacenter is changed",
		build: func() (*batchv1.Job, error) { return jobs.Preflight(run, t, int64(prepareTimeout(run)/time.Second)) }})
	if !done {
		return r, false
	}
	if failure != "" {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonSettingsInvalid, failure+"; the datacenter was not changed")
		return r, false
	}
	return r, true
}

// ensureJob returns the run's own Job of a component, or decides to create it (after deleting
// a Job of the same name an earlier run left) and returns false with that decision.
func (d *decider) ensureJob(component, stage string, build func() (*batchv1.Job, error)) (*batchv1.Job, stageResult, bool) {
	var r stageResult
	if job := d.o.jobs[component]; job != nil {
		return job, r, true
	}
	want, err := build()
	if err != nil {
		r.fail(stage, cbv1.ReasonInvalidSpec, err.Error())
		return nil, r, false
	}
	if old := d.o.foreign[want.Name]; old != nil {
		if old.DeletionTimestamp.IsZero() {
			r.deleteForeign = old
		}
		r.set(stage, metav1.ConditionFalse, reasonForStage(stage), fmt.Sprintf(
			"Job %s belongs to an earlier BenchmarkRun of the same name; deleting it (and stopping its pods) before this run creates its own", old.Name))
		return nil, r, false
	}
	r.create, r.createStage = want, stage
	r.set(stage, metav1.ConditionFalse, reasonForStage(stage), "creating Job "+want.Name)
	return nil, r, false
}

// notStarting looks at the pods of an unfinished Job that do not start. It fails the stage
// when one has not started within the grace, or never will (kept says what the failure
// leaves); otherwise it returns what to add to the stage's message, which names the first
// such pod and why, and looks again when its grace ends (in r). An unschedulable pod is only
// named: a cluster autoscaler may add a node for it, and the deadlines bound the wait.
func (d *decider) notStarting(job *batchv1.Job, component, stage, kept string) (note string, r stageResult, failed bool) {
	pods := jobs.NotStartingPods(d.o.pods[component])
	if len(pods) == 0 {
		return "", r, false
	}
	for _, p := range pods {
		if p.Unschedulable {
			continue
		}
		until := p.Since.Add(d.o.podStartGrace)
		if !p.Retried {
			until = p.Since
		}
		if d.o.now.Before(until) {
			r.requeue(until.Sub(d.o.now))
			continue
		}
		within := fmt.Sprintf("did not start within the manager's --pod-start-grace (%s)", d.o.podStartGrace)
		if !p.Retried {
			within = "cannot start"
		}
		r.fail(stage, cbv1.ReasonPodsNotStarting, fmt.Sprintf(
			"pod %s of Job %s %s: %s: %s; pods of the Job not starting: %d; %s. Correct what the kubelet names "+
				"(the image, a Secret or ConfigMap the pods read, an image pull secret) and create the run again",
			p.Pod, job.Name, within, p.Reason, p.Message, len(pods), kept))
		return "", r, true
	}
	p := pods[0]
	return fmt.Sprintf("; %d pod(s) not starting, %s: %s: %s", len(pods), p.Pod, p.Reason, p.Message), r, false
}

func reasonForStage(stage string) string {
	switch stage {
	case cbv1.ConditionSchemaReady:
		return cbv1.ReasonSetupRunning
	case cbv1.ConditionWritersComplete:
		return cbv1.ReasonWritersRunning
	}
	return cbv1.ReasonCheckingSettings
}

// setUp runs the setup Job once, against the nodes the run sized the datacenter to, and
// reads its report.
func (d *decider) setUp(t jobs.Target) stageResult {
	run := d.run
	t.Nodes = run.Status.Datacenter.Size
	if meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionSchemaReady) {
		return complete
	}
	report, failure, r, done := d.runJob(jobStage{component: jobs.ComponentSetup, stage: cbv1.ConditionSchemaReady,
		running: cbv1.ReasonSetupRunning, late: "the setup Job did not finish", kept: "no schema was created",
		doing: "is verifying settings and creating the schema",
		build: func() (*batchv1.Job, error) {
			return jobs.Setup(run, t, int64(max(prepareDeadline(run).Sub(d.o.now), time.Minute)/time.Second))
		}})
	if !done {
		return r
	}
	if report != nil {
		r.record(func(st *cbv1.BenchmarkRunStatus) {
			dc := st.Datacenter
			dc.CassandraVersion, dc.Nodes, dc.SettingsVerified = report.CassandraVersion, report.Nodes, report.SettingsVerified
			dc.SettingsUnverified = report.Unverified[:min(len(report.Unverified), 64)]
		})
	}
	if failure != "" {
		r.fail(cbv1.ConditionSchemaReady, cbv1.ReasonSetupFailed, "setup failed: "+failure)
		return r
	}
	r.set(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded,
		fmt.Sprintf("Cassandra %s on %d nodes; %d settings verified on every node; schema created",
			orUnknown(report.CassandraVersion), report.Nodes, len(report.SettingsVerified)))
	r.done = true
	return r
}

// reportGrace is how long after its Job finished a pod's report may take to be seen: the
// Job's status and its pods come through different watches, in no set order.
const reportGrace = 30 * time.Second

// awaitReport tells whether to wait for the pods of a Job that finished successfully when
// reports are missing, rather than fail the run for want of them, and how.
func (d *decider) awaitReport(job *batchv1.Job, missing bool, stage, reason string) (stageResult, bool) {
	var r stageResult
	if _, ok := jobs.Finished(job); !ok || !missing {
		return r, false
	}
	until := jobs.FinishedAt(job).Add(reportGrace)
	if !d.o.now.Before(until) {
		return r, false
	}
	r.set(stage, metav1.ConditionFalse, reason, fmt.Sprintf("Job %s finished; reading what its pods reported", job.Name))
	r.requeue(until.Sub(d.o.now))
	return r, true
}

// setupReport reads what a finished setup or preflight Job reported. failure is empty when
// it succeeded, else a sentence saying why it did not.
func setupReport(job *batchv1.Job, pods []corev1.Pod, component string) (*summary.SetupReport, string) {
	_, ok := jobs.Finished(job)
	term, found := jobs.TerminatedPods(pods, component)[0]
	var report *summary.SetupReport
	if found && term.Message != "" {
		var err error
		report, err = summary.DecodeSetupReport([]byte(term.Message))
		if err != nil {
			report = &summary.SetupReport{Error: fmt.Sprintf("%v; the pod said: %.300s", err, term.Message)}
		}
	}
	switch {
	case report != nil && report.Error != "":
		return report, report.Error
	case ok && report != nil:
		return report, ""
	case found:
		return report, fmt.Sprintf("pod %s exited with code %d (%s) without a report", term.Pod, term.ExitCode, term.Reason)
	default:
		return report, "Job " + job.Name + " failed: " + jobs.FailureMessage(job)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}
