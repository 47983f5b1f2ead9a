package local

import (
	"context"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A run that deletes a Cassandra pod inside its window: the datacenter grows to two nodes
// (RF 2, writes at ONE), 15 s into the window the controller deletes node 2's pod, the played
// kubelet runs its preStop drain and ends the real node, cass-operator's StatefulSet makes the
// pod again and cass-operator starts Cassandra in it on the same volume. The run succeeds with
// the fault's recovery figures, and gives the datacenter back only once it is whole again.
func TestRunDeletesACassandraPodInsideItsWindow(t *testing.T) {
	const name = "disrupt"
	env, ctx := scenario(t, name)
	allowDisruptions(ctx, t, env)
	run := newRun(env, name).Size(2).ReplicationFactor(2).
		Writers(2).Concurrency(4).Rate(300).Duration(60 * time.Second).
		Obj()
	run.Spec.Disruptions = []cbv1.Disruption{{Kind: cbv1.DisruptionDeletePod, Node: 2, At: metav1.Duration{Duration: 15 * time.Second}}}
	create(ctx, t, env, run)

	// The controller records the pod it deletes, with its UID, a pass before it deletes it.
	run = waitRun(ctx, t, env, name, 8*time.Minute, "disrupting", func(r *cbv1.BenchmarkRun) bool {
		return len(r.Status.Disruptions) == 1 && r.Status.Disruptions[0].PodUID != ""
	})
	victim := run.Status.Disruptions[0]
	if victim.Pod == "" || victim.StartTime == nil {
		t.Fatalf("disruption recorded without its pod or time: %+v", victim)
	}
	// The pod comes back under its name with another UID.
	replaced := waitPod(ctx, t, env, victim.Pod, 6*time.Minute, func(p *corev1.Pod) bool {
		return string(p.UID) != victim.PodUID && podIsReady(p)
	})
	t.Logf("pod %s (UID %s) deleted at %s; its replacement %s Ready", victim.Pod, victim.PodUID, victim.StartTime.Format(time.RFC3339Nano), replaced.UID)

	run = waitFinished(ctx, t, env, name, 10*time.Minute)
	if run.Status.Phase != cbv1.PhaseSucceeded {
		t.Fatalf("phase %s, want Succeeded; conditions:\n%s", run.Status.Phase, conditions(run))
	}
	rec := run.Status.Disruptions[0]
	if rec.Message != "" || rec.EndTime == nil || !rec.StartTime.Before(rec.EndTime) {
		t.Fatalf("status.disruptions[0] = %+v, want a fault made and ended", rec)
	}
	// The datacenter was given back only once the fault had ended.
	if c := cond(run, cbv1.ConditionDatacenterRestored); c.Reason != cbv1.ReasonRestored || c.LastTransitionTime.Before(&metav1.Time{Time: rec.EndTime.Truncate(time.Second)}) {
		t.Errorf("DatacenterRestored %s at %s, the fault ended at %s: want Restored after it", c.Reason, c.LastTransitionTime, rec.EndTime)
	}
	res := run.Status.Results
	if res == nil || len(res.Disruptions) != 1 {
		t.Fatalf("results.disruptions: %+v, want the one fault", res)
	}
	f := res.Disruptions[0]
	// The figures are the recorded times against the window the writers measured.
	if want := rec.StartTime.Sub(res.WindowStart.Time).Milliseconds(); f.StartMillis != want || f.Name != "DeletePod 2 at 15s" {
		t.Errorf("figures %+v: want the fault named DeletePod 2 at 15s, starting at %d ms", f, want)
	}
	if f.EndMillis <= f.StartMillis || f.EndMillis != rec.EndTime.Sub(res.WindowStart.Time).Milliseconds() {
		t.Errorf("figures end at %d ms, the fault at %s: want its recorded end", f.EndMillis, rec.EndTime)
	}
	// The fault began inside the window, after intervals that completed operations, and the
	// writers went on completing some while it lasted. The peak is not compared with the
	// baseline: on a loaded machine the p99 before the fault may be the higher.
	if f.StartMillis <= 0 || f.BaselineP99Micros <= 0 || f.PeakP99Micros <= 0 {
		t.Errorf("figures %+v: want a fault inside the window, a p99 before it and one while it lasted", f)
	}
	// A fault that outlasted the window cannot be seen to recover in it.
	if f.EndMillis >= res.WindowMillis && (f.Recovered || f.RecoveryMillis != 0) {
		t.Errorf("figures %+v: the fault ended after the %d ms window, yet recovered", f, res.WindowMillis)
	}
	t.Logf("figures: fault %d..%d ms of a %d ms window; errors %d during, %d after; p99 %d us before, %d us peak; recovered %t after %d ms",
		f.StartMillis, f.EndMillis, res.WindowMillis, f.Errors, f.ErrorsAfter, f.BaselineP99Micros, f.PeakP99Micros, f.Recovered, f.RecoveryMillis)

	checkRestored(ctx, t, env)
}

// allowDisruptions puts the second opt-in on the environment's datacenter for the scenario.
func allowDisruptions(ctx context.Context, t *testing.T, env *Env) {
	t.Helper()
	set := func(ctx context.Context, value *string) error {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := env.Client.Get(ctx, env.DatacenterKey(), dc); err != nil {
			return err
		}
		patch := client.MergeFrom(dc.DeepCopy())
		if value == nil {
			delete(dc.Annotations, cbv1.AllowDisruptionsAnnotation)
		} else {
			metav1.SetMetaDataAnnotation(&dc.ObjectMeta, cbv1.AllowDisruptionsAnnotation, *value)
		}
		return env.Client.Patch(ctx, dc, patch)
	}
	yes := "true"
	if err := set(ctx, &yes); err != nil {
		t.Fatalf("annotating the datacenter: %v", err)
	}
	t.Cleanup(func() {
		if err := set(context.Background(), nil); err != nil {
			t.Errorf("removing %s: %v", cbv1.AllowDisruptionsAnnotation, err)
		}
	})
}

// waitPod polls a pod of the datacenter's namespace every 200 ms until done says so.
func waitPod(ctx context.Context, t *testing.T, env *Env, name string, timeout time.Duration, done func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	p := &corev1.Pod{}
	for {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: env.DatacenterKey().Namespace, Name: name}, p)
		if err == nil && done(p) {
			return p
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("pod %s not as wanted within %s (UID %s, err %v, conditions %+v)", name, timeout, p.UID, err, p.Status.Conditions)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil
		}
	}
	return false
}
