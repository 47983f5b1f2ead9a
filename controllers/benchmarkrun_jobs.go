package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// setUp runs the setup Job once and reads its report.
func (r *BenchmarkRunReconciler) setUp(ctx context.Context, run *cbv1.BenchmarkRun, t jobs.Target) (bool, ctrl.Result, error) {
	if meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionSchemaReady) {
		return true, ctrl.Result{}, nil
	}
	want, err := jobs.Setup(run, t)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	job, err := r.ensureJob(ctx, want)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	done, _ := jobs.Finished(job)
	if !done {
		if r.prepareExpired(run, "the setup Job did not finish") {
			return false, ctrl.Result{}, nil
		}
		r.condition(run, cbv1.ConditionSchemaReady, metav1.ConditionFalse, cbv1.ReasonSetupRunning,
			fmt.Sprintf("Job %s is verifying settings and creating the schema", job.Name))
		return false, r.untilPrepareDeadline(run), nil
	}
	report, failure, err := r.setupReport(ctx, run, job, jobs.ComponentSetup)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if report != nil {
		st := run.Status.Datacenter
		st.CassandraVersion, st.Nodes, st.SettingsVerified = report.CassandraVersion, report.Nodes, report.SettingsVerified
	}
	if failure != "" {
		r.fail(run, cbv1.ConditionSchemaReady, cbv1.ReasonSetupFailed, "setup failed: "+failure)
		return false, ctrl.Result{}, nil
	}
	r.condition(run, cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded,
		fmt.Sprintf("Cassandra %s on %d nodes; %d settings verified on every node; schema created",
			orUnknown(report.CassandraVersion), report.Nodes, len(report.SettingsVerified)))
	return true, ctrl.Result{}, nil
}

// preflight checks, before the datacenter is changed, that every requested cassandra-yaml
// setting exists: cass-operator writes unknown keys into cassandra.yaml unchecked, and
// Cassandra then refuses to start, so a typo would otherwise stall a rolling restart until
// the prepare deadline instead of failing at once with the setting named.
func (r *BenchmarkRunReconciler) preflight(ctx context.Context, run *cbv1.BenchmarkRun, t jobs.Target) (bool, ctrl.Result, error) {
	if run.Status.Datacenter.PatchedGeneration != 0 {
		return true, ctrl.Result{}, nil
	}
	if settings, err := datacenter.CassandraYaml(run.Spec.Datacenter); err != nil || len(settings) == 0 {
		return true, ctrl.Result{}, nil
	}
	want, err := jobs.Preflight(run, t)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	job, err := r.ensureJob(ctx, want)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if done, _ := jobs.Finished(job); !done {
		if r.prepareExpired(run, "the settings check did not finish") {
			return false, ctrl.Result{}, nil
		}
		r.condition(run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonCheckingSettings,
			fmt.Sprintf("Job %s is checking that every cassandra-yaml setting exists before the datacenter is changed", job.Name))
		return false, r.untilPrepareDeadline(run), nil
	}
	_, failure, err := r.setupReport(ctx, run, job, jobs.ComponentPreflight)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if failure != "" {
		r.fail(run, cbv1.ConditionDatacenterReady, cbv1.ReasonSettingsInvalid,
			failure+"; the datacenter was not changed")
		return false, ctrl.Result{}, nil
	}
	return true, ctrl.Result{}, nil
}

// setupReport reads what a finished setup or preflight Job reported. failure is empty when
// it succeeded, else a sentence saying why it did not.
func (r *BenchmarkRunReconciler) setupReport(ctx context.Context, run *cbv1.BenchmarkRun, job *batchv1.Job, component string) (*summary.SetupReport, string, error) {
	_, ok := jobs.Finished(job)
	pods, err := r.pods(ctx, run, component)
	if err != nil {
		return nil, "", err
	}
	term, found := jobs.TerminatedPods(pods, component)[0]
	var report *summary.SetupReport
	if found && term.Message != "" {
		report, err = summary.DecodeSetupReport([]byte(term.Message))
		if err != nil {
			report = &summary.SetupReport{Error: fmt.Sprintf("%v; the pod said: %.300s", err, term.Message)}
		}
	}
	switch {
	case report != nil && report.Error != "":
		return report, report.Error, nil
	case ok && report != nil:
		return report, "", nil
	case found:
		return report, fmt.Sprintf("pod %s exited with code %d (%s) without a report", term.Pod, term.ExitCode, term.Reason), nil
	default:
		return report, "Job " + job.Name + " failed: " + jobs.FailureMessage(job), nil
	}
}

// runWriters creates the writer Job, collects every summary that exists on each pass, and
// decides the outcome when the Job is finished.
func (r *BenchmarkRunReconciler) runWriters(ctx context.Context, run *cbv1.BenchmarkRun, t jobs.Target) (ctrl.Result, error) {
	want, err := jobs.Writers(run, t, int64(runTimeout(run)/time.Second))
	if err != nil {
		return ctrl.Result{}, err
	}
	job, err := r.ensureJob(ctx, want)
	if err != nil {
		return ctrl.Result{}, err
	}
	pods, err := r.pods(ctx, run, jobs.ComponentWriter)
	if err != nil {
		return ctrl.Result{}, err
	}
	n := run.Spec.Writers.Replicas
	terminated := jobs.TerminatedPods(pods, jobs.ComponentWriter)
	summaries, problems := readSummaries(terminated, n)
	if merged := results.Merge(summaries); merged != nil {
		run.Status.Results = merged
	}
	active, succeeded, failed := jobs.Counts(job)
	run.Status.Writers = &cbv1.WritersStatus{JobName: job.Name, Replicas: n, Active: active, Succeeded: succeeded, Failed: failed}

	done, _ := jobs.Finished(job)
	if !done {
		if len(problems) > 0 {
			// A failed writer fails the run, but the others run on to the end of their window
			// so their results are kept.
			r.condition(run, cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWritersRunning,
				fmt.Sprintf("%d of %d writers running; failed so far: %s", active, n, strings.Join(problems, "; ")))
		} else {
			r.condition(run, cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWritersRunning,
				fmt.Sprintf("%d of %d writers running, %d done", active, n, succeeded))
		}
		run.Status.Progress = progress(run, lastStart(pods), r.Clock.Now(), r.ProgressInterval)
		return ctrl.Result{RequeueAfter: r.ProgressInterval}, nil
	}
	run.Status.Progress = nil
	r.targetRate(run)
	missing := missingWriters(summaries, n)
	if len(problems) == 0 && len(missing) == 0 {
		r.condition(run, cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded,
			fmt.Sprintf("all %d writers finished and reported", n))
		return ctrl.Result{}, nil
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("no result from writer(s) %s", joinInts(missing)))
	}
	if msg := jobs.FailureMessage(job); msg != "" {
		problems = append(problems, "Job "+job.Name+": "+msg)
	}
	r.fail(run, cbv1.ConditionWritersComplete, cbv1.ReasonWriterFailed,
		fmt.Sprintf("%s; results of the %d writers that reported are kept", strings.Join(problems, "; "), n-int32(len(missing))))
	return ctrl.Result{}, nil
}

// readSummaries decodes the writers' termination messages. A writer that failed is named with
// its reason; its summary, if it wrote one, is still merged.
func readSummaries(terminated map[int32]jobs.Terminated, n int32) ([]*summary.Summary, []string) {
	var out []*summary.Summary
	var problems []string
	for i := int32(0); i < n; i++ {
		t, ok := terminated[i]
		if !ok {
			continue
		}
		var s *summary.Summary
		if t.Message != "" {
			var err error
			if s, err = summary.Decode([]byte(t.Message)); err != nil {
				problems = append(problems, fmt.Sprintf("writer %d (pod %s): unreadable result: %v", i, t.Pod, err))
			}
		}
		if s != nil {
			s.Index = i
			out = append(out, s)
		}
		switch {
		case s != nil && s.Error != "":
			problems = append(problems, fmt.Sprintf("writer %d (pod %s) failed: %s", i, t.Pod, s.Error))
		case t.ExitCode != 0 && (s == nil || s.Error == ""):
			problems = append(problems, fmt.Sprintf("writer %d (pod %s) exited with code %d (%s)", i, t.Pod, t.ExitCode, t.Reason))
		}
	}
	return out, problems
}

func missingWriters(got []*summary.Summary, n int32) []int32 {
	seen := map[int32]bool{}
	for _, s := range got {
		seen[s.Index] = true
	}
	var missing []int32
	for i := int32(0); i < n; i++ {
		if !seen[i] {
			missing = append(missing, i)
		}
	}
	return missing
}

func joinInts(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// lastStart is when the last writer container started, or zero while any has not.
func lastStart(pods []corev1.Pod) time.Time {
	var last time.Time
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			var at metav1.Time
			switch {
			case cs.State.Running != nil:
				at = cs.State.Running.StartedAt
			case cs.State.Terminated != nil:
				at = cs.State.Terminated.StartedAt
			default:
				return time.Time{}
			}
			if at.After(last) {
				last = at.Time
			}
		}
	}
	return last
}

// ensureJob creates a Job unless it exists; an existing one is returned as it is, so a
// restarted manager never creates a second.
func (r *BenchmarkRunReconciler) ensureJob(ctx context.Context, want *batchv1.Job) (*batchv1.Job, error) {
	job := &batchv1.Job{}
	err := r.Get(ctx, client.ObjectKeyFromObject(want), job)
	if err == nil {
		return job, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("getting Job %s: %w", want.Name, err)
	}
	if err := r.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating Job %s: %w", want.Name, err)
	}
	return want, nil
}

func (r *BenchmarkRunReconciler) pods(ctx context.Context, run *cbv1.BenchmarkRun, component string) ([]corev1.Pod, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(run.Namespace),
		client.MatchingLabels{cbv1.RunLabel: run.Name, cbv1.ComponentLabel: component}); err != nil {
		return nil, fmt.Errorf("listing %s pods: %w", component, err)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	return pods.Items, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}

// targetRate reports whether an open loop achieved its target: a run that did not is still
// a result (what the cluster did at that load), but its latency is not latency at that rate.
func (r *BenchmarkRunReconciler) targetRate(run *cbv1.BenchmarkRun) {
	res := run.Status.Results
	if res == nil || res.Schedule == nil {
		return
	}
	if msg, short := results.TargetShortfall(res); short {
		r.condition(run, cbv1.ConditionTargetRateReached, metav1.ConditionFalse, cbv1.ReasonTargetRateNotReached, msg)
		return
	}
	r.condition(run, cbv1.ConditionTargetRateReached, metav1.ConditionTrue, cbv1.ReasonTargetRateReached,
		fmt.Sprintf("achieved %d ops/s of the %d ops/s targeted", res.OpsPerSecond, res.Schedule.TargetOpsPerSecond))
}
