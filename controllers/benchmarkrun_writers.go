package controllers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
)

// The writers stage: one indexed Job, each pod's report stored the first time it is read,
// the reports merged into the results.

// load creates the writer Job, stores every writer's report the first time it is read,
// merges the stored reports, and decides the outcome when the Job is finished.
func (d *decider) load(t jobs.Target) stageResult {
	run := d.run
	job, r, ok := d.ensureJob(jobs.ComponentWriter, cbv1.ConditionWritersComplete, func() (*batchv1.Job, error) {
		return jobs.Writers(run, t, int64(runTimeout(run)/time.Second))
	})
	if !ok {
		return r
	}
	n := run.Spec.Writers.Replicas
	pods := d.o.pods[jobs.ComponentWriter]
	full, fresh := gatherReports(run.Status.WriterReports, d.o.reports, jobs.TerminatedPods(pods, jobs.ComponentWriter), pods, n)
	r.reports = reportstore.ConfigMaps(run, fresh)
	rows := compactReports(run.Name, full)
	summaries, problems := readSummaries(full, run.Spec.Writers.Resources)
	merged := mergeSummaries(run, summaries, d.o.dc)
	priceResults(run, d.o.pricing, d.o.dc, merged)
	active, succeeded, failed := jobs.Counts(job)
	writers := &cbv1.WritersStatus{JobName: job.Name, Replicas: n, Active: active, Succeeded: succeeded, Failed: failed}
	r.record(func(st *cbv1.BenchmarkRunStatus) {
		st.WriterReports, st.Writers = rows, writers
		if merged != nil {
			st.Results = merged
		}
	})

	done, _ := jobs.Finished(job)
	if !done {
		deadline := job.CreationTimestamp.Add(runTimeout(run) + time.Minute)
		if !d.o.now.Before(deadline) {
			r.fail(cbv1.ConditionWritersComplete, cbv1.ReasonRunDeadlineExceeded, fmt.Sprintf(
				"the writers did not finish within deadlines.run (%s); results of the writers that reported are kept", runTimeout(run)))
			return r
		}
		note, starting, failed := d.notStarting(job, jobs.ComponentWriter, cbv1.ConditionWritersComplete,
			fmt.Sprintf("results of the %d writers that reported are kept", len(summaries)))
		r.merge(starting)
		if failed {
			return r
		}
		msg := fmt.Sprintf("%d of %d writers running, %d done", active, n, succeeded)
		if len(problems) > 0 {
			// A failed writer fails the run, but the others run on to the end of their window
			// so their results are kept.
			msg = fmt.Sprintf("%d of %d writers running; failed so far: %s", active, n, strings.Join(problems, "; "))
		}
		r.set(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWritersRunning, msg+note)
		p := progress(run, lastStart(pods), d.o.now, d.o.progressInterval)
		r.record(func(st *cbv1.BenchmarkRunStatus) { st.Progress = p })
		space, table := runTable(run, d.o.dc)
		r.merge(d.disrupt(pods, space, table))
		r.requeue(min(d.o.progressInterval, deadline.Sub(d.o.now)))
		return r
	}
	missing := missingWriters(summaries, n)
	if wait, ok := d.awaitReport(job, len(missing) > 0, cbv1.ConditionWritersComplete, cbv1.ReasonWritersRunning); ok {
		r.merge(wait)
		return r
	}
	r.record(func(st *cbv1.BenchmarkRunStatus) { st.Progress = nil })
	res := merged
	if res == nil {
		res = run.Status.Results
	}
	r.merge(resultConditions(res))
	if len(problems) == 0 && len(missing) == 0 {
		r.set(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded,
			fmt.Sprintf("all %d writers finished and reported", n))
		r.done = true
		return r
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("no result from writer(s) %s", joinInts(missing)))
	}
	reason := cbv1.ReasonWriterFailed
	if msg := jobs.FailureMessage(job); msg != "" {
		problems = append(problems, "Job "+job.Name+": "+msg)
		if strings.HasPrefix(msg, batchv1.JobReasonDeadlineExceeded) {
			reason = cbv1.ReasonRunDeadlineExceeded
		}
	}
	r.fail(cbv1.ConditionWritersComplete, reason,
		fmt.Sprintf("%s; results of the %d writers that reported are kept", strings.Join(problems, "; "), n-int32(len(missing))))
	return r
}

// targetRate reports whether an open loop achieved its target: a run that did not is still
// a result (what the cluster did at that load), but its latency is not latency at that rate.
func targetRate(res *cbv1.Results) stageResult {
	var r stageResult
	if res == nil || res.Schedule == nil {
		return r
	}
	if msg, short := results.TargetShortfall(res); short {
		r.set(cbv1.ConditionTargetRateReached, metav1.ConditionFalse, cbv1.ReasonTargetRateNotReached, msg)
		return r
	}
	r.set(cbv1.ConditionTargetRateReached, metav1.ConditionTrue, cbv1.ReasonTargetRateReached,
		fmt.Sprintf("achieved %d ops/s of the %d ops/s targeted", res.OpsPerSecond, res.Schedule.TargetOpsPerSecond))
	return r
}

// withTerminated adds to the known reports every writer that terminated and is not known
// yet. A known report is never replaced: it is what that writer measured.
func withTerminated(stored []cbv1.WriterReport, terminated map[int32]jobs.Terminated, pods []corev1.Pod, n int32) []cbv1.WriterReport {
	have := map[int32]bool{}
	for _, r := range stored {
		have[r.Index] = true
	}
	uids := map[string]types.UID{}
	for _, p := range pods {
		uids[p.Name] = p.UID
	}
	out := append([]cbv1.WriterReport(nil), stored...)
	for i := int32(0); i < n; i++ {
		t, ok := terminated[i]
		if !ok || have[i] {
			continue
		}
		out = append(out, cbv1.WriterReport{Index: i, Pod: t.Pod, PodUID: string(uids[t.Pod]), ExitCode: t.ExitCode,
			Reason: t.Reason, Summary: t.Message})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// readSummaries decodes the stored writer reports. A failed writer is named with its reason;
// its summary, if it wrote one, is still merged.
func readSummaries(reports []cbv1.WriterReport, resources corev1.ResourceRequirements) ([]*summary.Summary, []string) {
	var out []*summary.Summary
	var problems []string
	for _, r := range reports {
		var s *summary.Summary
		if r.Summary != "" {
			var err error
			if s, err = summary.Decode([]byte(r.Summary)); err != nil {
				problems = append(problems, fmt.Sprintf("writer %d (pod %s): unreadable result: %v", r.Index, r.Pod, err))
			}
		}
		if s != nil {
			s.Index = r.Index
			out = append(out, s)
		}
		switch {
		case s != nil && s.Error != "":
			problems = append(problems, fmt.Sprintf("writer %d (pod %s) failed: %s", r.Index, r.Pod, s.Error))
		case r.ExitCode != 0 && (s == nil || s.Error == ""):
			problems = append(problems, exitProblem(r, resources))
		}
	}
	return out, problems
}

// reasonOOMKilled is the reason the kubelet gives a container the kernel killed for memory.
const reasonOOMKilled = "OOMKilled"

// exitProblem names a writer whose container failed without saying why itself. One the
// kernel killed for memory is told what to change: the limit, or the requests in flight that
// fill it (each holds a goroutine and its buffers).
func exitProblem(r cbv1.WriterReport, resources corev1.ResourceRequirements) string {
	msg := fmt.Sprintf("writer %d (pod %s) exited with code %d (%s)", r.Index, r.Pod, r.ExitCode, r.Reason)
	if r.Reason != reasonOOMKilled {
		return msg
	}
	if limit, ok := resources.Limits[corev1.ResourceMemory]; ok {
		return fmt.Sprintf("%s: it used all of its memory limit (writers.resources.limits.memory %s); raise it or lower writers.concurrency",
			msg, limit.String())
	}
	return msg + ": the kernel killed it for memory, which its node or pod ran short of; set writers.resources.limits.memory and requests to what it needs"
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

// nodeCPULimit is the CPU limit of the datacenter's Cassandra containers in millicores, 0 when
// none is set (requests alone do not bound a node: it may use whatever its Kubernetes node has
// spare).
func nodeCPULimit(dc *cassdcapi.CassandraDatacenter) int64 {
	if dc == nil {
		return 0
	}
	if q, ok := dc.Spec.Resources.Limits[corev1.ResourceCPU]; ok {
		return q.MilliValue()
	}
	return 0
}
