package local

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// pidWatch counts the restarts of node 1 from its JVM's process id, sampled every 100 ms: a
// restart is a new process id (cass-operator rolls its pods for every config change).
type pidWatch struct {
	mu   sync.Mutex
	pids []int // distinct process ids seen, in order
	stop chan struct{}
	done chan struct{}
}

func watchPIDs(env *Env) *pidWatch {
	w := &pidWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			if pid := env.Nodes.PID(1); pid != 0 {
				w.mu.Lock()
				if len(w.pids) == 0 || w.pids[len(w.pids)-1] != pid {
					w.pids = append(w.pids, pid)
				}
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

// restarts is how many times node 1 got a new process since the watch began.
func (w *pidWatch) restarts() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return max(len(w.pids)-1, 0)
}

func (w *pidWatch) end() {
	close(w.stop)
	<-w.done
}

// tunedSweep is a sweep over writers.replicas on the environment's datacenter whose template
// tunes concurrent_writes (a config change: a rolling restart), with restore atEnd.
func tunedSweep(env *Env, name string, duration time.Duration, writers ...int32) *cbv1.BenchmarkSweep {
	tmpl := newRun(env, name).CassandraYaml(map[string]any{"concurrent_writes": 64}).
		Writers(1).Concurrency(4).Rate(200).Duration(duration).Obj().Spec
	axis := cbv1.SweepAxis{Path: "writers.replicas"}
	for _, w := range writers {
		axis.Values = append(axis.Values, intstr.FromInt32(w))
	}
	return &cbv1.BenchmarkSweep{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: env.Namespace},
		Spec:       cbv1.BenchmarkSweepSpec{Template: tmpl, Axes: []cbv1.SweepAxis{axis}, Restore: cbv1.RestoreAtEnd},
	}
}

func sweepConditions(sw *cbv1.BenchmarkSweep) string {
	s := ""
	for _, c := range sw.Status.Conditions {
		s += fmt.Sprintf("  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	return s
}

// runSweep runs a three-point restore atEnd sweep over writers.replicas (1, 2, 3) whose
// template tunes concurrent_writes, and counts node 1's restarts: by the time each point's
// writers run, and in all once the datacenter is back.
func runSweep(t *testing.T, name string) (during []int, total int, pids []int) {
	t.Helper()
	runs := []string{name + "-0-0", name + "-1-0", name + "-2-0"}
	env, ctx := scenario(t, runs...)
	w := watchPIDs(env)
	defer w.end()
	sw := tunedSweep(env, name, 5*time.Second, 1, 2, 3)
	if err := env.Client.Create(ctx, sw); err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		waitRun(ctx, t, env, run, 8*time.Minute, "running", func(r *cbv1.BenchmarkRun) bool {
			return r.Status.Phase == cbv1.PhaseRunning || meta.FindStatusCondition(r.Status.Conditions, cbv1.ConditionSucceeded) != nil
		})
		during = append(during, w.restarts())
		if got := nodeSetting(ctx, t, 1, "concurrent_writes"); got != "64" {
			t.Errorf("node 1 concurrent_writes = %q during %s, want 64", got, run)
		}
		done := waitFinished(ctx, t, env, run, 5*time.Minute)
		if done.Status.Phase != cbv1.PhaseSucceeded {
			t.Fatalf("%s: phase %s; conditions:\n%s", run, done.Status.Phase, conditions(done))
		}
		if c := cond(done, cbv1.ConditionDatacenterRestored); c.Reason != cbv1.ReasonHeldBySweep {
			t.Errorf("%s: DatacenterRestored %s, want %s: %s", run, c.Reason, cbv1.ReasonHeldBySweep, c.Message)
		}
	}
	got := &cbv1.BenchmarkSweep{}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(sw), got); err == nil &&
			meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sweep not finished within 5m; conditions:\n%s", sweepConditions(got))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got.Status.Phase != cbv1.PhaseSucceeded || got.Status.Completed != 3 {
		t.Errorf("sweep phase %s, progress %q; conditions:\n%s", got.Status.Phase, got.Status.Progress, sweepConditions(got))
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionDatacenterRestored); c == nil || c.Reason != cbv1.ReasonRestored {
		t.Errorf("sweep DatacenterRestored %+v", c)
	}
	checkRestored(ctx, t, env)
	checkNoSnapshots(t, env, sw.Spec.Template.Schema.Keyspace, runs[1:]...)
	total = w.restarts()
	w.mu.Lock()
	pids = append(pids, w.pids...)
	w.mu.Unlock()
	t.Logf("node 1 restarts: %v by the start of each point's writers, %d in all (process ids %v)", during, total, pids)
	return during, total, pids
}

// A three-point sweep with restore atEnd that varies only writers.replicas restarts the node
// once to tune it before the first point, never between points, and once to restore it after
// the last.
func TestSweepAtEndRestartsNothingBetweenPointsAndRestoresOnce(t *testing.T) {
	during, total, _ := runSweep(t, "sweep-end")
	if len(during) != 3 || during[0] != 1 || during[1] != 1 || during[2] != 1 {
		t.Errorf("node 1 restarted %v times by the start of each point, want [1 1 1]: one tuning, none between points", during)
	}
	if total != 2 {
		t.Errorf("node 1 restarted %d times over the sweep, want 2 (tune once, restore once)", total)
	}
}

// A sweep with restore atEnd deleted while its first point's writers run stops them, then
// restores the datacenter and releases the lock before it goes.
func TestSweepAtEndDeletedMidwayRestoresAndReleases(t *testing.T) {
	const name = "sweep-del"
	env, ctx := scenario(t, name+"-0-0")
	sw := tunedSweep(env, name, time.Minute, 1, 2)
	if err := env.Client.Create(ctx, sw); err != nil {
		t.Fatal(err)
	}
	writer := waitWriterMeasuring(ctx, t, env, name+"-0-0", 0)
	tunedPID := env.Nodes.PID(1)
	if got := nodeSetting(ctx, t, 1, "concurrent_writes"); got != "64" {
		t.Errorf("node 1 concurrent_writes = %q while the first point's writer measures, want 64", got)
	}
	deleted := time.Now()
	if err := env.Client.Delete(ctx, sw); err != nil {
		t.Fatal(err)
	}
	// Until the sweep is gone and the node restarted: the restore restarts the node only once
	// the writer stopped.
	var writerStopped, restarted time.Time
	deadline := time.Now().Add(6 * time.Minute)
	for {
		now := time.Now()
		if writerStopped.IsZero() && !env.Runner.Running(writer.Namespace, writer.Name) {
			writerStopped = now
		}
		if pid := env.Nodes.PID(1); restarted.IsZero() && pid != tunedPID {
			restarted = now
			if writerStopped.IsZero() {
				t.Errorf("node 1 restarted for the restore while writer %s (pid %d) still ran", writer.Name, writer.PID)
			}
		}
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(sw), &cbv1.BenchmarkSweep{})
		if apierrors.IsNotFound(err) && !restarted.IsZero() {
			break
		}
		if now.After(deadline) {
			got := &cbv1.BenchmarkSweep{}
			_ = env.Client.Get(ctx, client.ObjectKeyFromObject(sw), got)
			t.Fatalf("6m after the delete: sweep get %v, node 1 restarted at %v; conditions:\n%s", err, restarted, sweepConditions(got))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("writer stopped %s after the delete request; the restore restarted node 1 %s after that",
		writerStopped.Sub(deleted).Round(time.Millisecond), restarted.Sub(writerStopped).Round(time.Millisecond))
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: env.Namespace, Name: name + "-1-0"}, &cbv1.BenchmarkRun{}); !apierrors.IsNotFound(err) {
		t.Errorf("point 1 exists after the sweep was deleted: %v", err)
	}
	checkRestored(ctx, t, env)
}

// checkNoSnapshots checks that the recreating drops of the named runs' setup left no snapshot
// of keyspace on any node: each setup cleared them through the management API of the node's
// pod (played, over the real node) and said so in its log.
func checkNoSnapshots(t *testing.T, env *Env, keyspace string, runs ...string) {
	t.Helper()
	var rows []string
	iter := session(t, NodeIP(1)).Query("SELECT name, keyspace_name FROM system_views.snapshots").Iter()
	var name, ks string
	for iter.Scan(&name, &ks) {
		if ks == keyspace {
			rows = append(rows, name)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("listing the snapshots of %s: %v", keyspace, err)
	}
	if len(rows) > 0 {
		t.Errorf("snapshots of %s left: %v", keyspace, rows)
	}
	for _, run := range runs {
		cleared := false
		for _, p := range env.Runner.Processes() {
			if p.Labels[cbv1.RunLabel] == run && p.Labels[cbv1.ComponentLabel] == "setup" &&
				strings.Contains(tailFile(p.Log, 40), "snapshot(s) of keyspace "+keyspace+" that the drop left") {
				cleared = true
			}
		}
		if !cleared {
			t.Errorf("the setup of %s did not clear the snapshots its drop of %s left", run, keyspace)
		}
	}
}
