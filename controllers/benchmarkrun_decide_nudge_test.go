package controllers

import (
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// nudgeEvery is the rows' nudge interval; the other decide tables leave it zero (off).
const nudgeEvery = 30 * time.Second

// nudging is the observation with nudges on.
func nudging(o observation) observation { o.nudgeInterval = nudgeEvery; return o }

// rollingOut is the datacenter at generation 6 that cass-operator has not rolled out yet.
func rollingOut(b *builders.DatacenterBuilder) *builders.DatacenterBuilder {
	return b.Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Generation, dc.Status.ObservedGeneration = 6, 5 })
}

// givenBack: the run finished at t1, its restore patch produced generation 6.
func givenBack() *builders.BenchmarkRunBuilder {
	return loaded().Condition(restoredCond, metav1.ConditionTrue, cbv1.ReasonRestored, t1).
		Condition(cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded, t1).
		Apply(func(r *cbv1.BenchmarkRun) { r.Status.Datacenter.RestoredGeneration = 6 })
}

// requeuesWithin checks that the pass looks again by the next nudge.
func requeuesWithin(d time.Duration) func(t *testing.T, s step) {
	return func(t *testing.T, s step) {
		if s.requeueAfter <= 0 || s.requeueAfter > d {
			t.Errorf("requeue after %s, want within %s", s.requeueAfter, d)
		}
	}
}

// now is the rows' clock (observed's), as the nudge writes it.
var now = t0.Add(5 * time.Minute).Format(time.RFC3339)

func TestDecideNudgesCassOperatorWhileTheRunWaitsForIt(t *testing.T) {
	waiting := recorded().Patched(5, 5).Condition(dcReadyCond, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating, t1)
	applying := func() *builders.DatacenterBuilder {
		return atTarget(ours()).Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Status.ObservedGeneration = 4 })
	}
	testDecide(t, map[string]decideCase{
		"a run that has waited an interval for its patch nudges cass-operator": {
			o:  nudging(observed(waiting.Obj(), applying().Obj())),
			dc: "nudge=" + now, requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating"), check: requeuesWithin(nudgeEvery)},
		"a run nudged 10 s ago waits for the next nudge": {
			o:       nudging(observed(waiting.Obj(), applying().Annotation(cbv1.ReconcileRequestedAnnotation, t0.Add(5*time.Minute-10*time.Second).Format(time.RFC3339)).Obj())),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating"), check: requeuesWithin(20 * time.Second)},
		"a run that just patched does not nudge yet": {
			o: nudging(observed(recorded().Patched(5, 5).Condition(dcReadyCond, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
				t0.Add(5*time.Minute-time.Second)).Obj(), applying().Obj())),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating"), check: requeuesWithin(29 * time.Second)},
		"a run waiting for an earlier change (the last run's restore rolling) nudges too": {
			o:  nudging(observed(recorded().Condition(dcReadyCond, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating, t1).Obj(), rollingOut(ours()).Obj())),
			dc: "nudge=" + now, requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"a run gives back the datacenter and the nudge in one patch": {
			o:  nudging(observed(loaded().Obj(), atTarget(ours()).Annotation(cbv1.ReconcileRequestedAnnotation, "2026-01-01T00:04:30Z").Obj(), done("writer", 0))),
			dc: restored + " nudge=-", conds: conds(restoredCond, "True/Restored", cbv1.ConditionSucceeded, "True/Succeeded")},
	})
}

func TestDecideNudgesTheGiveBackRollThenLetsTheFinalizerGo(t *testing.T) {
	nudged := func(b *builders.DatacenterBuilder) *builders.DatacenterBuilder {
		return b.Annotation(cbv1.ReconcileRequestedAnnotation, "2026-01-01T00:01:00Z")
	}
	testDecide(t, map[string]decideCase{
		"a finished run keeps its finalizer and nudges while cass-operator rolls out the restore": {
			o:  nudging(observed(givenBack().Obj(), rollingOut(aDC()).Obj())),
			dc: "nudge=" + now, requeue: true, check: requeuesWithin(nudgeEvery)},
		"a finished run whose datacenter's pods are not all ready yet keeps waiting": {
			o: with(nudging(observed(givenBack().Obj(), nudged(aDC().Ready(6)).Annotation(cbv1.ReconcileRequestedAnnotation, now).Obj())),
				func(o *observation) { o.dcPendingPods = []string{"c1-dc1-r1-sts-0 (Running)"} }),
			requeue: true},
		"a finished run removes its nudge once the restore is rolled out": {
			o: nudging(observed(givenBack().Obj(), nudged(aDC().Ready(6)).Obj())), dc: "nudge=-"},
		"a finished run lets its finalizer go once nothing of it is left": {
			o: nudging(observed(givenBack().Obj(), aDC().Ready(6).Obj())), removeFinalizer: true},
		"a finished run leaves a datacenter someone else holds now, nudge and all": {
			o: nudging(observed(givenBack().Obj(), nudged(rollingOut(aDC().LockedBy("bench/next"))).Obj())), removeFinalizer: true},
		"a finished run waits no longer than the give-back deadline, then removes its nudge": {
			o: at(nudging(observed(givenBack().Obj(), nudged(rollingOut(aDC())).Obj())), 40*time.Minute), dc: "nudge=-"},
		"a finished run that is deleted removes its nudge without waiting for the roll": {
			o: nudging(observed(givenBack().Deleting(t0.Add(2*time.Minute)).Obj(), nudged(rollingOut(aDC())).Obj())), dc: "nudge=-"},
		"a run deleted once its nudge is gone lets its finalizer go": {
			o: nudging(observed(givenBack().Deleting(t0.Add(2*time.Minute)).Obj(), rollingOut(aDC()).Obj())), removeFinalizer: true},
	})
}
