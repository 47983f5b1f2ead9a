package local

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
)

// A writer whose process dies mid-window fails the run, named; the others' results are kept.
func TestKilledWriterFailsTheRunAndKeepsTheOthers(t *testing.T) {
	const name = "killed-writer"
	env, ctx := scenario(t, name)
	run := newRun(env, name).Writers(3).Concurrency(4).Rate(300).Duration(30 * time.Second).Obj()
	create(ctx, t, env, run)

	victim := waitWriterMeasuring(ctx, t, env, name, 1)
	t.Logf("killing writer 1: pod %s, pid %d", victim.Name, victim.PID)
	if err := syscall.Kill(victim.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	run = waitFinished(ctx, t, env, name, 3*time.Minute)
	if run.Status.Phase != cbv1.PhaseFailed {
		t.Fatalf("phase %s, want Failed; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	c := cond(run, cbv1.ConditionWritersComplete)
	if c.Reason != cbv1.ReasonWriterFailed || !strings.Contains(c.Message, "writer 1 ") {
		t.Errorf("WritersComplete is %s %q, want %s naming writer 1", c.Reason, c.Message, cbv1.ReasonWriterFailed)
	}
	res := run.Status.Results
	if res == nil {
		t.Fatal("no results kept")
	}
	var reported []int32
	for _, w := range res.PerWriter {
		reported = append(reported, w.Index)
	}
	if res.WritersReported != 2 || !slices.Equal(reported, []int32{0, 2}) || res.Operations == 0 {
		t.Errorf("results from writers %v (%d reported, %d operations), want 0 and 2 with operations", reported, res.WritersReported, res.Operations)
	}
	t.Logf("failure: %s", c.Message)
	checkRestored(ctx, t, env)
}

// A run whose pods read a Secret that does not exist fails once the manager's
// --pod-start-grace has passed, naming the pod, the kubelet's reason and the Secret, and
// leaves the datacenter as it found it, unlocked. The local pod runner gives the kubelet's
// CreateContainerConfigError and retries, as the kubelet does.
func TestPodsReadingAMissingSecretFailTheRun(t *testing.T) {
	const name = "missing-secret"
	env, ctx := scenario(t, name)
	run := newRun(env, name).Size(2).CassandraYaml(map[string]any{"concurrent_writes": 48}).Writers(1).Obj()
	run.Spec.Connection = &cbv1.ConnectionSpec{CredentialsSecretRef: &corev1.LocalObjectReference{Name: "no-such-secret"}}
	create(ctx, t, env, run)

	run = waitFinished(ctx, t, env, name, podStartGrace+3*time.Minute)
	if run.Status.Phase != cbv1.PhaseFailed {
		t.Fatalf("phase %s, want Failed; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	c := cond(run, cbv1.ConditionSucceeded)
	if c.Reason != cbv1.ReasonPodsNotStarting || !strings.Contains(c.Message, "CreateContainerConfigError") || !strings.Contains(c.Message, "no-such-secret") {
		t.Errorf("the failure is %s %q, want %s naming the kubelet's reason and the Secret", c.Reason, c.Message, cbv1.ReasonPodsNotStarting)
	}
	if st := run.Status.Datacenter; st == nil || st.Changed || st.PatchedGeneration != 0 {
		t.Errorf("the datacenter was patched: %+v", st)
	}
	t.Logf("failure: %s", c.Message)
	checkRestored(ctx, t, env)
}

// A manager whose container is killed with SIGKILL mid-run, and started again by the
// kubelet, completes the run with one writer Job.
func TestManagerRestartedMidRunCompletesIt(t *testing.T) {
	const name = "manager-restart"
	env, ctx := scenario(t, name)
	run := newRun(env, name).Writers(2).Concurrency(4).Rate(200).Duration(25 * time.Second).Obj()
	create(ctx, t, env, run)

	waitWriterMeasuring(ctx, t, env, name, 0)
	killManager(ctx, t, env)

	run = waitFinished(ctx, t, env, name, 3*time.Minute)
	if run.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("phase %s, want Succeeded; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	var js batchv1.JobList
	if err := env.Client.List(ctx, &js, client.InNamespace(env.Namespace), client.MatchingLabels{cbv1.RunLabel: name, cbv1.ComponentLabel: jobs.ComponentWriter}); err != nil {
		t.Fatal(err)
	}
	var pods corev1.PodList
	if err := env.Client.List(ctx, &pods, client.InNamespace(env.Namespace), client.MatchingLabels{cbv1.RunLabel: name, cbv1.ComponentLabel: jobs.ComponentWriter}); err != nil {
		t.Fatal(err)
	}
	if len(js.Items) != 1 || len(pods.Items) != 2 {
		t.Errorf("%d writer Jobs and %d writer pods, want 1 and 2", len(js.Items), len(pods.Items))
	}
	if res := run.Status.Results; res == nil || res.WritersReported != 2 {
		t.Errorf("results %+v, want both writers reported", res)
	}
	checkRestored(ctx, t, env)
}

// killManager kills the manager's container with SIGKILL and waits until the played kubelet
// has started it again (restartPolicy Always) and it leads again: the pod reports the restart
// and the killed container as its last state, as the kubelet does.
func killManager(ctx context.Context, t *testing.T, env *Env) {
	t.Helper()
	before, _, err := env.managerPod(ctx)
	if err != nil || before == nil {
		t.Fatalf("the manager's pod: %v %v", before, err)
	}
	restarts := before.Status.ContainerStatuses[0].RestartCount
	pid, err := env.KillManager(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The new container waits for the killed one's leader election lease to expire.
	if err := env.WaitManager(ctx, pid, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	after, _, err := env.managerPod(ctx)
	if err != nil || after == nil {
		t.Fatalf("the manager's pod: %v %v", after, err)
	}
	cs := after.Status.ContainerStatuses[0]
	if after.UID != before.UID || cs.RestartCount != restarts+1 || cs.LastTerminationState.Terminated == nil ||
		cs.LastTerminationState.Terminated.ExitCode != 137 {
		t.Fatalf("manager pod %s (was %s): restarts %d (was %d), last state %+v; want the same pod restarted once after exit code 137",
			after.UID, before.UID, cs.RestartCount, restarts, cs.LastTerminationState)
	}
}

// waitWriterMeasuring waits until writer index of the run has started its measured window
// (it prints its progress only then) and returns its process.
func waitWriterMeasuring(ctx context.Context, t *testing.T, env *Env, run string, index int) PodProcess {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, p := range env.Runner.Processes() {
			if p.Labels[cbv1.RunLabel] != run || p.Labels[cbv1.ComponentLabel] != jobs.ComponentWriter ||
				p.Labels[batchv1.JobCompletionIndexAnnotation] != strconv.Itoa(index) {
				continue
			}
			log, _ := os.ReadFile(p.Log)
			if strings.Contains(string(log), " measuring ") && env.Runner.Running(p.Namespace, p.Name) {
				return p
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("writer %d of %s did not start measuring within 3m", index, run)
	return PodProcess{}
}
