package controllers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// Runs across datacenters, and keyspaces replicated per datacenter: what decide refuses before
// it takes anything.
func TestDecideAcrossDatacenters(t *testing.T) {
	testDecide(t, map[string]decideCase{
		"a run across several datacenters with disruptions fails before it takes any": {
			o: severalObserved(acrossBoth().Apply(func(r *cbv1.BenchmarkRun) {
				r.Spec.Disruptions = []cbv1.Disruption{{}}
			}).Obj(), aDC().Obj(), dc2().Obj()),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, "spec.disruptions")},
		"a run across datacenters of two clusters fails naming the odd one out": {
			o: with(observed(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2"}).Obj(), nil), func(o *observation) {
				o.named = []*cassdcapi.CassandraDatacenter{aDC().Obj(), builders.MakeDatacenter("dc2", "bench").Cluster("other").Obj()}
			}),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, `spec.datacenters[1]: CassandraDatacenter bench/dc2 is in Cassandra cluster "other"`)},
		"a run across datacenters replicated to one outside their cluster fails naming the entry": {
			o: with(observed(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2"}).
				Apply(replicatedTo("dc1", "dc2", "dc3")).Obj(), nil), func(o *observation) {
				dc2 := builders.MakeDatacenter("dc2", "bench").Cluster("c1").Obj()
				o.named = []*cassdcapi.CassandraDatacenter{aDC().Obj(), dc2}
				o.clusterDCs = []cassdcapi.CassandraDatacenter{*aDC().Obj(), *dc2, *builders.MakeDatacenter("dc3", "bench").Cluster("c2").Obj()}
			}),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, "schema.replication.datacenters[2].name: dc3 is not a datacenter of Cassandra cluster \"c1\"")},
		"a run replicated to a datacenter outside its cluster fails before it takes its own": {
			o: with(observed(aRun().Apply(replicatedTo("dc1", "east")).Obj(), aDC().Obj()), func(o *observation) {
				o.clusterDCs = []cassdcapi.CassandraDatacenter{*aDC().Obj()}
			}),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, "schema.replication.datacenters[1].name: east")},
		"a run replicated to another datacenter of its cluster takes its own": {
			o: with(observed(aRun().Apply(replicatedTo("dc1", "dc2")).Obj(), aDC().Obj()), func(o *observation) {
				o.clusterDCs = []cassdcapi.CassandraDatacenter{*aDC().Obj(), *builders.MakeDatacenter("dc2", "db").Cluster("c1").Obj()}
			}),
			dc: "lock=bench/r"},
	})
}

// replicatedTo replicates the run's keyspace once to each named datacenter.
func replicatedTo(names ...string) func(*cbv1.BenchmarkRun) {
	return func(r *cbv1.BenchmarkRun) {
		r.Spec.Schema.Replication.Strategy = cbv1.NetworkTopologyStrategy
		for _, n := range names {
			r.Spec.Schema.Replication.Datacenters = append(r.Spec.Schema.Replication.Datacenters, cbv1.DatacenterReplication{Name: n, Factor: 1})
		}
	}
}

// messageHas checks that the condition's message holds want.
func messageHas(condition, want string) func(*testing.T, step) {
	return func(t *testing.T, s step) {
		if c := meta.FindStatusCondition(s.status.Conditions, condition); c == nil || !strings.Contains(c.Message, want) {
			t.Errorf("%s: %+v; want a message containing %q", condition, c, want)
		}
	}
}

// acrossBoth is aRun across dc1 and dc2 of cluster c1, listed dc2 first: the run takes them in
// the one order (dc1, then dc2) whatever order the spec lists them in.
func acrossBoth() *builders.BenchmarkRunBuilder {
	return aRun().Datacenters(cbv1.RunDatacenter{Name: "dc2"}, cbv1.RunDatacenter{Name: "dc1", Writers: 2})
}

// dc2 is aDC's sibling in cluster c1.
func dc2() *builders.DatacenterBuilder {
	return builders.MakeDatacenter("dc2", "bench").Cluster("c1").Size(3).Config(origConfig).AllowBenchmarks("true").Ready(4)
}

// severalObserved is what observeSeveral reads of a run across several datacenters: each of
// dcs (given in key order) with the run first in its queue.
func severalObserved(run *cbv1.BenchmarkRun, dc1, dc2 *cassdcapi.CassandraDatacenter, js ...*batchv1.Job) observation {
	o := observed(run, nil, js...)
	dcs := []*cassdcapi.CassandraDatacenter{dc1, dc2}
	byName := map[string]*cassdcapi.CassandraDatacenter{}
	for _, dc := range dcs {
		byName[dc.Name] = dc
		o.several = append(o.several, heldDC{key: keyOf(dc), dc: dc, queueHead: o.queueHead, queuePosition: 1})
	}
	for _, d := range run.Spec.Datacenters {
		o.named = append(o.named, byName[d.Name])
	}
	return o
}

// holding: the run recorded size 3 and the original config of each named datacenter.
func holding(names ...string) func(*cbv1.BenchmarkRun) {
	return func(r *cbv1.BenchmarkRun) {
		r.Status.StartTime = &metav1.Time{Time: t0}
		for _, n := range names {
			r.Status.Datacenters = append(r.Status.Datacenters, cbv1.DatacenterStatus{HeldDatacenter: lendingStored(n), Size: 3})
		}
	}
}

func lendingStored(name string) cbv1.HeldDatacenter {
	return cbv1.HeldDatacenter{Name: name, Namespace: "bench", OriginalSize: ptr.To[int32](3), OriginalConfig: &runtime.RawExtension{Raw: []byte(origConfig)}}
}

// changeOn checks that the step's change is made on the named datacenter, and what status
// records of the run's datacenters.
func changeOn(name string, recorded ...string) func(*testing.T, step) {
	return func(t *testing.T, s step) {
		if s.on == nil || s.on.Name != name {
			t.Errorf("change made on %v, want %s", s.on, name)
		}
		recordedAre(recorded...)(t, s)
	}
}

// recordedAre checks the datacenters status.datacenters records, in order, each with the
// original size 3.
func recordedAre(names ...string) func(*testing.T, step) {
	return func(t *testing.T, s step) {
		var got []string
		for _, rec := range s.status.Datacenters {
			got = append(got, rec.Name)
			if rec.OriginalSize == nil || *rec.OriginalSize != 3 {
				t.Errorf("%s recorded with original size %v", rec.Name, rec.OriginalSize)
			}
		}
		if diff := cmp.Diff(names, got); diff != "" {
			t.Errorf("status.datacenters (-want +got):\n%s", diff)
		}
		if st := s.status.Datacenter; st != nil && st.OriginalSize != nil {
			t.Errorf("status.datacenter holds originals %d: a run across several records each in status.datacenters", *st.OriginalSize)
		}
	}
}

// Taking and giving back several datacenters through the one take chain, one change a pass.
func TestDecideTakesSeveralDatacentersInOrder(t *testing.T) {
	other := types.NamespacedName{Namespace: "bench", Name: "other"}
	failed := func(r *cbv1.BenchmarkRun) {
		meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: dcReadyCond, Status: metav1.ConditionFalse,
			Reason: cbv1.ReasonPrepareDeadlineExceeded, Message: "m", LastTransitionTime: metav1.NewTime(t0)})
	}
	setupOK, _ := setupReports(t)
	testDecide(t, map[string]decideCase{
		"the first in the one order is locked first, whatever the spec's order": {
			o:  severalObserved(acrossBoth().Obj(), aDC().Obj(), dc2().Obj()),
			dc: "lock=bench/r", check: changeOn("dc1"), conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"locked: its originals are recorded in its own entry": {
			o:     severalObserved(acrossBoth().Obj(), ours().Obj(), dc2().Obj()),
			check: recordedAre("dc1"), conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"holding the first: the second is locked": {
			o:  severalObserved(acrossBoth().Apply(holding("dc1")).Obj(), ours().Obj(), dc2().Obj()),
			dc: "lock=bench/r", check: changeOn("dc2", "dc1")},
		"the second locked: its originals are recorded after the first's": {
			o:     severalObserved(acrossBoth().Apply(holding("dc1")).Obj(), ours().Obj(), dc2().LockedBy("bench/r").Obj()),
			check: recordedAre("dc1", "dc2"), conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"the second held by another run: the run waits holding the first alone": {
			o: with(severalObserved(acrossBoth().Apply(holding("dc1")).Obj(), ours().Obj(), dc2().LockedBy("bench/other").Obj()),
				func(o *observation) { o.several[1].holderAlive = true }),
			check: recordedAre("dc1"), conds: conds(dcReadyCond, "False/DatacenterBusy")},
		"the second promised to an older run that holds all before it: the run waits": {
			o: with(severalObserved(acrossBoth().Apply(holding("dc1")).Obj(), ours().Obj(), dc2().Obj()),
				func(o *observation) { o.several[1].queueHead, o.several[1].queuePosition = other, 2 }),
			check: recordedAre("dc1"), conds: conds(dcReadyCond, "False/DatacenterBusy")},
		"holding both: the settings are checked once before any datacenter changes": {
			o:      severalObserved(acrossBoth().Apply(holding("dc1", "dc2")).Obj(), ours().Obj(), dc2().LockedBy("bench/r").Obj()),
			create: jobs.ComponentPreflight, check: recordedAre("dc1", "dc2")},
		"holding both, settings checked: the first is patched to the run's target, then the second": {
			o: withPods(severalObserved(acrossBoth().Apply(holding("dc1", "dc2")).Obj(), ours().Obj(), dc2().LockedBy("bench/r").Obj(), preflightDone),
				jobs.ComponentPreflight, pod(preflightJob, 0, 0, setupOK)),
			dc: "size=5 config=" + compact(json.RawMessage(targetConfig)), check: changeOn("dc1", "dc1", "dc2")},
		"the first at the target and ready: the second is patched": {
			o: withPods(severalObserved(acrossBoth().Apply(holding("dc1", "dc2")).Apply(func(r *cbv1.BenchmarkRun) {
				r.Status.Datacenters[0].PatchedGeneration, r.Status.Datacenters[0].Size, r.Status.Datacenters[0].Changed = 5, 5, true
			}).Obj(), atTarget(ours()).Obj(), dc2().LockedBy("bench/r").Obj(), preflightDone), jobs.ComponentPreflight, pod(preflightJob, 0, 0, setupOK)),
			dc: "size=5 config=" + compact(json.RawMessage(targetConfig)), check: changeOn("dc2", "dc1", "dc2")},
		"the first patched and rolling: the second is patched meanwhile": {
			o: withPods(severalObserved(acrossBoth().Apply(holding("dc1", "dc2")).Apply(func(r *cbv1.BenchmarkRun) {
				r.Status.Datacenters[0].PatchedGeneration, r.Status.Datacenters[0].Size, r.Status.Datacenters[0].Changed = 5, 5, true
			}).Obj(), rolling(atTarget(ours()).Obj()), dc2().LockedBy("bench/r").Obj(), preflightDone), jobs.ComponentPreflight, pod(preflightJob, 0, 0, setupOK)),
			dc: "size=5 config=" + compact(json.RawMessage(targetConfig)), check: changeOn("dc2", "dc1", "dc2")},
		"the first rolling, the second at the target: the run waits for both, recording the second's patch": {
			o: severalObserved(acrossBoth().Apply(holding("dc1", "dc2")).Apply(func(r *cbv1.BenchmarkRun) {
				r.Status.Datacenters[0].PatchedGeneration, r.Status.Datacenters[0].Size, r.Status.Datacenters[0].Changed = 5, 5, true
			}).Obj(), rolling(atTarget(ours()).Obj()), atTarget(dc2().LockedBy("bench/r")).Obj()),
			conds: conds(dcReadyCond, "False/DatacenterUpdating"), requeue: true,
			check: func(t *testing.T, s step) {
				recordedAre("dc1", "dc2")(t, s)
				if c := meta.FindStatusCondition(s.status.Conditions, dcReadyCond); !strings.Contains(c.Message, "waiting for cass-operator") {
					t.Errorf("waits for %q, want the first datacenter's roll", c.Message)
				}
				if rec := s.status.Datacenters[1]; rec.PatchedGeneration == 0 || rec.Size != 5 {
					t.Errorf("the second's patch not recorded: %+v", rec)
				}
			}},
		"failed holding the first and the second's lock before its originals (a crash between): the second, the last taken, is only unlocked": {
			o: severalObserved(acrossBoth().Apply(holding("dc1")).Apply(failed).Obj(),
				atTarget(ours()).Obj(), dc2().LockedBy("bench/r").Obj()),
			dc: "lock=-", check: changeOn("dc2", "dc1"), conds: conds(cbv1.ConditionDatacenterRestored, "False/Restoring")},
		"the second unlocked: the first goes back to its originals": {
			o: severalObserved(acrossBoth().Apply(holding("dc1")).Apply(failed).Obj(),
				atTarget(ours()).Obj(), dc2().Obj()),
			dc: "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-", check: changeOn("dc1", "dc1")},
		"both given back: the run fails with each datacenter named": {
			o:     severalObserved(acrossBoth().Apply(holding("dc1")).Apply(failed).Obj(), aDC().Obj(), dc2().Obj()),
			conds: conds(cbv1.ConditionDatacenterRestored, "True/Restored", cbv1.ConditionSucceeded, "False/PrepareDeadlineExceeded"),
			check: messageHas(cbv1.ConditionDatacenterRestored, "CassandraDatacenter bench/dc2: the run did not change the datacenter")},
		"deleted while it waits for the second: only the first is given back": {
			o: severalObserved(acrossBoth().Apply(holding("dc1")).Deleting(t0.Add(time.Minute)).Obj(),
				ours().Obj(), dc2().LockedBy("bench/other").Obj()),
			dc: "lock=-", check: changeOn("dc1", "dc1")},
	})
}

// A run with observers in one datacenter is taken like any other (its writers observe);
// observers in two fail it before it takes any, naming the second, as status holds the lag
// to one datacenter.
func TestDecideObserversAcrossDatacenters(t *testing.T) {
	testDecide(t, map[string]decideCase{
		"observers in one datacenter: the first datacenter is locked": {
			o: severalObserved(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2}, cbv1.RunDatacenter{Name: "dc2", Observers: 1}).Obj(),
				aDC().Obj(), dc2().Obj()),
			dc: "lock=bench/r", check: changeOn("dc1"), conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"observers in two datacenters are refused naming the second": {
			o: severalObserved(aRun().Datacenters(cbv1.RunDatacenter{Name: "dc1", Writers: 2, Observers: 1}, cbv1.RunDatacenter{Name: "dc2", Observers: 1}).Obj(),
				aDC().Obj(), dc2().Obj()),
			conds: conds(dcReadyCond, "False/InvalidSpec"), check: messageHas(dcReadyCond, "spec.datacenters[1].observers")},
	})
}

// rolling is the datacenter with its spec not yet observed by cass-operator.
func rolling(dc *cassdcapi.CassandraDatacenter) *cassdcapi.CassandraDatacenter {
	dc.Status.ObservedGeneration = dc.Generation - 1
	return dc
}
