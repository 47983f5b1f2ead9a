package opmetrics

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

var t0 = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

func at(minutes int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute)) }

func cond(t string, status metav1.ConditionStatus, reason string, minutes int) metav1.Condition {
	return metav1.Condition{Type: t, Status: status, Reason: reason, LastTransitionTime: at(minutes)}
}

func TestDurations(t *testing.T) {
	type want struct {
		Hold, Restore time.Duration
		OK            bool
	}
	start, done := at(0), at(30)
	cases := map[string]struct {
		start, done *metav1.Time
		conds       []metav1.Condition
		want        want
	}{
		"succeeded: restore from the writers' end": {start: &start, done: &done, conds: []metav1.Condition{
			cond(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, 5),
			cond(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, 7),
			cond(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, 20),
			cond(cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded, 30),
		}, want: want{30 * time.Minute, 10 * time.Minute, true}},
		"failed at prepare: the stages it never reached were settled at completion": {start: &start, done: &done, conds: []metav1.Condition{
			cond(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonPrepareDeadlineExceeded, 25),
			cond(cbv1.ConditionSchemaReady, metav1.ConditionFalse, cbv1.ReasonNotReached, 30),
			cond(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonNotReached, 30),
			cond(cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonPrepareDeadlineExceeded, 30),
		}, want: want{30 * time.Minute, 5 * time.Minute, true}},
		"failed mid-writers: the running stage stopped at completion": {start: &start, done: &done, conds: []metav1.Condition{
			cond(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterDrifted, 12),
			cond(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonStopped, 30),
			cond(cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonDatacenterDrifted, 30),
		}, want: want{30 * time.Minute, 18 * time.Minute, true}},
		"not finished": {start: &start, conds: []metav1.Condition{
			cond(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, 20),
		}},
		"never took the datacenter": {done: &done, conds: []metav1.Condition{
			cond(cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonInvalidSpec, 30),
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{StartTime: tc.start, CompletionTime: tc.done, Conditions: tc.conds}}
			var got want
			got.Hold, got.Restore, got.OK = Durations(run)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Durations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueDepths(t *testing.T) {
	run := func(name, dcNamespace, reason string, finished bool) cbv1.BenchmarkRun {
		r := cbv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"},
			Spec: cbv1.BenchmarkRunSpec{DatacenterRef: &cbv1.DatacenterReference{Name: "dc1", Namespace: dcNamespace}}}
		if reason != "" {
			r.Status.Conditions = append(r.Status.Conditions, cond(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, reason, 1))
		}
		if finished {
			r.Status.Conditions = append(r.Status.Conditions, cond(cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonStopped, 2))
		}
		return r
	}
	got := QueueDepths([]cbv1.BenchmarkRun{
		run("holder", "", cbv1.ReasonDatacenterUpdating, false),
		run("second", "", cbv1.ReasonDatacenterBusy, false),
		run("third", "", cbv1.ReasonDatacenterBusy, false),
		run("elsewhere", "db", cbv1.ReasonDatacenterBusy, false),
		run("gave-up", "", cbv1.ReasonDatacenterBusy, true),
		run("new", "", "", false),
	})
	want := map[types.NamespacedName]int{{Namespace: "team", Name: "dc1"}: 2, {Namespace: "db", Name: "dc1"}: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("QueueDepths (-want +got):\n%s", diff)
	}
}

func TestByPhase(t *testing.T) {
	got := byPhase([]namespacedPhase{{"a", cbv1.PhaseRunning}, {"a", ""}, {"a", cbv1.PhaseRunning}, {"b", cbv1.PhaseFailed}}, sweepPhases)
	want := []phaseCount{
		{namespacedPhase{"a", cbv1.PhaseFailed}, 0}, {namespacedPhase{"a", cbv1.PhasePending}, 1},
		{namespacedPhase{"a", cbv1.PhaseRunning}, 2}, {namespacedPhase{"a", cbv1.PhaseSucceeded}, 0},
		{namespacedPhase{"b", cbv1.PhaseFailed}, 1}, {namespacedPhase{"b", cbv1.PhasePending}, 0},
		{namespacedPhase{"b", cbv1.PhaseRunning}, 0}, {namespacedPhase{"b", cbv1.PhaseSucceeded}, 0},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(namespacedPhase{}, phaseCount{})); diff != "" {
		t.Errorf("byPhase (-want +got):\n%s", diff)
	}
}
