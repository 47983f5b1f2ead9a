package controllers

import (
	"fmt"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
)

// Fixtures of the disruption rows: a run asking to delete node 2's pod 20 s into its window,
// a datacenter that allows it, its Cassandra pods, and writers that started at t0+4m.

func withDisruption(kind cbv1.DisruptionKind, node int32, at time.Duration) func(*cbv1.BenchmarkRun) {
	return func(r *cbv1.BenchmarkRun) {
		r.Spec.Disruptions = append(r.Spec.Disruptions, cbv1.Disruption{Kind: kind, Node: node, At: metav1.Duration{Duration: at}})
	}
}

// withRecords sets status.disruptions.
func withRecords(recs ...cbv1.DisruptionRecord) func(*cbv1.BenchmarkRun) {
	return func(r *cbv1.BenchmarkRun) { r.Status.Disruptions = recs }
}

// allowsDisruptions is the datacenter, locked by the run at its target, allowing disruptions.
func allowsDisruptions() *cassdcapi.CassandraDatacenter {
	return atTarget(ours()).Annotation(cbv1.AllowDisruptionsAnnotation, "true").Obj()
}

// nodePod is Cassandra pod c1-dc1-r1-sts-<ordinal> of rack r1, Ready or not.
func nodePod(ordinal int, uid string, ready bool) corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c1-dc1-r1-sts-%d", ordinal), Namespace: "bench", UID: types.UID(uid),
			Labels: map[string]string{cassdcapi.RackLabel: "r1"}},
		Status: corev1.PodStatus{PodIP: fmt.Sprintf("10.0.0.%d", ordinal+1), Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

// fiveNodes are the datacenter's pods at its target size, in no particular order.
func fiveNodes() []corev1.Pod {
	return []corev1.Pod{nodePod(4, "uid-4", true), nodePod(1, "uid-1", true), nodePod(0, "uid-0", true), nodePod(3, "uid-3", true), nodePod(2, "uid-2", true)}
}

// startedWriters are the run's writer pods, both running since t0+started.
func startedWriters(started time.Duration) []corev1.Pod {
	var out []corev1.Pod
	for i := range int32(2) {
		p := pod(writerJob, i, 0, "")
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0.Add(started))}}
		out = append(out, p)
	}
	return out
}

// keyValue gives the run the key-value profile's table in keyspace bench, as the CRD's
// defaults would with that keyspace.
func keyValue(r *cbv1.BenchmarkRun) {
	r.Spec.Schema.Keyspace, r.Spec.Schema.Table.Profile = "bench", cbv1.ProfileKeyValue
	r.Spec.Schema.Replication.Strategy, r.Spec.Schema.DurableWrites = cbv1.SimpleStrategy, ptr.To(true)
}

func withNodes(o observation, pods ...corev1.Pod) observation { o.dcPods = pods; return o }

func recordsSay(want ...cbv1.DisruptionRecord) func(t *testing.T, s step) {
	return func(t *testing.T, s step) {
		t.Helper()
		if len(s.status.Disruptions) != len(want) {
			t.Fatalf("status.disruptions %+v, want %+v", s.status.Disruptions, want)
		}
		for i, w := range want {
			g := s.status.Disruptions[i]
			if g.Name != w.Name || g.Pod != w.Pod || g.PodUID != w.PodUID || !g.StartTime.Equal(w.StartTime) || !g.EndTime.Equal(w.EndTime) || g.Message != w.Message {
				t.Errorf("status.disruptions[%d] = %+v, want %+v", i, g, w)
			}
		}
	}
}

func tm(d time.Duration) *metav1.MicroTime { return &metav1.MicroTime{Time: t0.Add(d)} }

func TestDecideDisrupts(t *testing.T) {
	deleteNode2 := withDisruption(cbv1.DisruptionDeletePod, 2, 20*time.Second)
	running := func(apply ...func(*cbv1.BenchmarkRun)) observation {
		b := setUp().Apply(deleteNode2)
		for _, f := range apply {
			b = b.Apply(f)
		}
		return withNodes(withPods(observed(b.Obj(), allowsDisruptions(), writerJob), jobs.ComponentWriter, startedWriters(4*time.Minute)...), fiveNodes()...)
	}
	recorded := cbv1.DisruptionRecord{Name: "DeletePod 2 at 20s", Pod: "c1-dc1-r1-sts-1", PodUID: "uid-1", StartTime: tm(5 * time.Minute)}
	ended := recorded
	ended.EndTime = tm(5 * time.Minute)
	testDecide(t, map[string]decideCase{
		"a run waits for a datacenter that does not allow disruptions, naming the annotation": {
			o:       observed(aRun().Apply(deleteNode2).Obj(), aDC().Obj()),
			requeue: true, conds: conds(dcReadyCond, "False/DisruptionsNotAllowed"),
			check: messageSays(dcReadyCond, `annotate it with cassbench.io/allow-disruptions="true"`)},
		"a run whose datacenter still does not allow disruptions at the deadline fails, untouched": {
			o:     at(observed(aRun().Apply(deleteNode2).Obj(), aDC().Annotation(cbv1.AllowDisruptionsAnnotation, "false").Obj()), 31*time.Minute),
			conds: conds(dcReadyCond, "False/PrepareDeadlineExceeded"),
			check: messageSays(dcReadyCond, `annotate it with cassbench.io/allow-disruptions="true"`)},
		"a run on a datacenter that allows disruptions takes it": {
			o: observed(aRun().Apply(deleteNode2).Obj(), aDC().Annotation(cbv1.AllowDisruptionsAnnotation, "true").Obj()), dc: "lock=bench/r"},
		"a run refuses a node its datacenter will not have": {
			o:     observed(aRun().Apply(withDisruption(cbv1.DisruptionFlush, 6, time.Second)).Obj(), aDC().Annotation(cbv1.AllowDisruptionsAnnotation, "true").Obj()),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageSays(dcReadyCond, "spec.disruptions[0].node is 6, but CassandraDatacenter bench/dc1 will have 5 nodes")},

		"a run records a due disruption on the node's pod, by rack and ordinal, and makes nothing yet": {
			o: running(), requeue: true, conds: conds(writersCond, "False/WritersRunning"),
			check: func(t *testing.T, s step) {
				recordsSay(recorded)(t, s)
				if s.disrupt != nil || s.requeueAfter > 2*time.Second {
					t.Errorf("disrupt %+v, requeue %s: want nothing made and a look within 2 s", s.disrupt, s.requeueAfter)
				}
			}},
		"a run waits for a disruption not yet due": {
			o: withPods(withNodes(observed(setUp().Apply(deleteNode2).Obj(), allowsDisruptions(), writerJob), fiveNodes()...),
				jobs.ComponentWriter, startedWriters(4*time.Minute+50*time.Second)...),
			requeue: true,
			check: func(t *testing.T, s step) {
				recordsSay(cbv1.DisruptionRecord{Name: "DeletePod 2 at 20s"})(t, s)
				if s.disrupt != nil || s.requeueAfter > 11*time.Second || s.requeueAfter < 10*time.Second {
					t.Errorf("disrupt %+v, requeue %s: want nothing and a look when it is due, in 10 s", s.disrupt, s.requeueAfter)
				}
			}},
		"a run deletes the pod it recorded, by its UID": {
			o: running(withRecords(recorded)), requeue: true,
			check: func(t *testing.T, s step) {
				recordsSay(recorded)(t, s)
				a := s.disrupt
				if a == nil || a.kind != cbv1.DisruptionDeletePod || a.pod.Name != "c1-dc1-r1-sts-1" || a.uid != "uid-1" {
					t.Errorf("disrupt %+v, want the deletion of c1-dc1-r1-sts-1 with UID uid-1", a)
				}
			}},
		"a run deletes nothing while the pod terminates, and waits": {
			o: withNodes(running(withRecords(recorded)), nodePod(0, "uid-0", true), func() corev1.Pod {
				p := nodePod(1, "uid-1", true)
				p.DeletionTimestamp = &metav1.Time{Time: t0.Add(5 * time.Minute)}
				return p
			}()),
			requeue: true,
			check: func(t *testing.T, s step) {
				recordsSay(recorded)(t, s)
				if s.disrupt != nil {
					t.Errorf("disrupt %+v, want nothing", s.disrupt)
				}
			}},
		"a run deletes nothing more when a new pod took the name, and ends the fault once it is Ready": {
			o: withNodes(running(withRecords(recorded)), nodePod(0, "uid-0", true), nodePod(1, "uid-1b", true)), requeue: true,
			check: func(t *testing.T, s step) {
				recordsSay(ended)(t, s)
				if s.disrupt != nil {
					t.Errorf("disrupt %+v, want nothing", s.disrupt)
				}
			}},
		"a run's fault is open while the new pod is not Ready": {
			o: withNodes(running(withRecords(recorded)), nodePod(0, "uid-0", true), nodePod(1, "uid-1b", false)), requeue: true,
			check: recordsSay(recorded)},
		"a run flushes its table on the node it recorded, through the pod's address": {
			o: withNodes(observed(setUp().Apply(withDisruption(cbv1.DisruptionFlush, 3, 10*time.Second)).Apply(keyValue).Apply(withRecords(
				cbv1.DisruptionRecord{Name: "Flush 3 at 10s", Pod: "c1-dc1-r1-sts-2", StartTime: tm(5 * time.Minute)})).Obj(), allowsDisruptions(), writerJob), fiveNodes()...),
			requeue: true,
			check: func(t *testing.T, s step) {
				a := s.disrupt
				if a == nil || a.kind != cbv1.DisruptionFlush || a.ip != "10.0.0.3" || a.space != "bench" || a.table != "key_value" {
					t.Errorf("disrupt %+v, want a flush of the run's table at 10.0.0.3", a)
				}
			}},
	})
}

func TestDecideGivesBackAfterDisruptions(t *testing.T) {
	deleteNode2 := withDisruption(cbv1.DisruptionDeletePod, 2, 20*time.Second)
	// The writers measured from t0+4m for a minute, in 1 s intervals at a p99 of 1 ms, but
	// 5 ms and 3 errors an interval in 20..29 s, while node 2's pod was away.
	measured := func(r *cbv1.BenchmarkRun) {
		tl := &cbv1.Timeline{IntervalMillis: 1000}
		for i := range 60 {
			p := cbv1.TimelinePoint{OffsetMillis: int64(i) * 1000, Operations: 100, P99Micros: 1000}
			if i >= 20 && i < 30 {
				p.P99Micros, p.Errors = 5000, 3
			}
			tl.Points = append(tl.Points, p)
		}
		r.Status.Results = &cbv1.Results{WindowStart: metav1.NewTime(t0.Add(4 * time.Minute)), WindowEnd: metav1.NewTime(t0.Add(5 * time.Minute)),
			WindowMillis: 60000, Timeline: tl}
	}
	made := cbv1.DisruptionRecord{Name: "DeletePod 2 at 20s", Pod: "c1-dc1-r1-sts-1", PodUID: "uid-1", StartTime: tm(4*time.Minute + 20*time.Second),
		EndTime: tm(4*time.Minute + 30*time.Second)}
	open := made
	open.EndTime = nil
	whole := []corev1.Pod{nodePod(0, "uid-0", true), nodePod(1, "uid-1b", true), nodePod(2, "uid-2", true), nodePod(3, "uid-3", true), nodePod(4, "uid-4", true)}
	testDecide(t, map[string]decideCase{
		"a run gives the datacenter back once it is whole, with each fault's recovery figures": {
			o:  withNodes(observed(loaded().Apply(deleteNode2).Apply(measured).Apply(withRecords(made)).Obj(), allowsDisruptions(), done(jobs.ComponentWriter, 0)), whole...),
			dc: restored, conds: conds(restoredCond, "True/Restored", cbv1.ConditionSucceeded, "True/Succeeded"),
			check: func(t *testing.T, s step) {
				// The windows ending at 29..33 s hold a 5 ms interval; 34..43 are the stable
				// stretch, so the p99 recovered at 35 s, 5 s after the pod was Ready again.
				want := []cbv1.DisruptionResult{{Name: "DeletePod 2 at 20s", StartMillis: 20000, EndMillis: 30000, Errors: 30,
					BaselineP99Micros: 1000, PeakP99Micros: 5000, Recovered: true, RecoveryMillis: 5000}}
				if got := s.status.Results.Disruptions; len(got) != 1 || got[0] != want[0] {
					t.Errorf("results.disruptions = %+v, want %+v", got, want)
				}
			}},
		"a run waits, touching nothing, until the deleted pod is back and Ready": {
			o:       withNodes(observed(loaded().Apply(deleteNode2).Apply(measured).Apply(withRecords(open)).Obj(), allowsDisruptions(), done(jobs.ComponentWriter, 0)), whole[0], nodePod(1, "uid-1b", false), whole[2], whole[3], whole[4]),
			requeue: true, conds: conds(restoredCond, "False/Restoring"),
			check: messageSays(restoredCond, "waiting for the datacenter to be whole again after the run's disruptions")},
		"a run waits until the datacenter has all its pods": {
			o:       withNodes(observed(loaded().Apply(deleteNode2).Apply(measured).Apply(withRecords(made)).Obj(), allowsDisruptions(), done(jobs.ComponentWriter, 0)), whole[:4]...),
			requeue: true, conds: conds(restoredCond, "False/Restoring"), check: messageSays(restoredCond, "4 of 5 pods exist")},
		"a run gives the datacenter back at the deadline even if it is not whole": {
			o:  at(withNodes(observed(loaded().Apply(deleteNode2).Apply(measured).Apply(withRecords(open)).Obj(), allowsDisruptions(), done(jobs.ComponentWriter, 0)), whole[:4]...), 2*time.Hour),
			dc: restored, conds: conds(restoredCond, "True/Restored")},
		"a run that failed before its writers gives the datacenter back without waiting for pods it never read": {
			o:  observed(failed(recorded().Patched(5, 5).Apply(deleteNode2), dcReadyCond, cbv1.ReasonPrepareDeadlineExceeded).Obj(), allowsDisruptions()),
			dc: restored, conds: conds(restoredCond, "True/Restored"),
			check: recordsSay(cbv1.DisruptionRecord{Name: "DeletePod 2 at 20s", EndTime: tm(5 * time.Minute),
				Message: "skipped: the writers were not running at its time"})},
		"a disruption not made before the writers finished is skipped, and has no figures": {
			o:  withNodes(observed(loaded().Apply(deleteNode2).Apply(measured).Obj(), allowsDisruptions(), done(jobs.ComponentWriter, 0)), whole...),
			dc: restored, conds: conds(restoredCond, "True/Restored"),
			check: func(t *testing.T, s step) {
				recordsSay(cbv1.DisruptionRecord{Name: "DeletePod 2 at 20s", EndTime: tm(5 * time.Minute),
					Message: "skipped: the writers were not running at its time"})(t, s)
				if len(s.status.Results.Disruptions) != 0 {
					t.Errorf("results.disruptions = %+v, want none", s.status.Results.Disruptions)
				}
			}},
	})
}
