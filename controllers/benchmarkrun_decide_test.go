package controllers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
)

// The whole lifecycle of a run, one row per state and per fault, each named by the sentence it
// proves: what decide does next. One test per part of the lifecycle; the fixtures the rows are
// built with are in benchmarkrun_decide_fixtures_test.go.

// decideCase is one row: what a pass observed, and what decide must choose from it.
type decideCase struct {
	o observation
	// dc is the datacenter change, as describe writes it; empty for none.
	dc string
	// create is the component of the Job to create.
	create string
	// stop lists the Jobs to suspend; deleteForeign the earlier run's Job to delete.
	stop          []string
	deleteForeign string
	// conds are conditions the new status must have, as "Status/Reason".
	conds                         map[string]string
	addFinalizer, removeFinalizer bool
	requeue                       bool
	check                         func(t *testing.T, s step)
}

func TestDecideFindsAndTakesTheDatacenter(t *testing.T) {
	testDecide(t, map[string]decideCase{
		// Finding and taking the datacenter.
		"a new run gets its finalizer, then asks for the lock": {o: observed(aRun().Apply(func(r *cbv1.BenchmarkRun) { r.Finalizers = nil }).Obj(), aDC().Obj()),
			addFinalizer: true, dc: "lock=bench/r", conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"a run whose datacenter is missing waits for it": {o: observed(aRun().Obj(), nil), requeue: true,
			conds: conds(dcReadyCond, "False/DatacenterNotFound")},
		"a run whose datacenter is still missing at the deadline fails": {o: at(observed(aRun().Obj(), nil), 31*time.Minute),
			conds: conds(dcReadyCond, "False/PrepareDeadlineExceeded")},
		"a run on a datacenter in a namespace the manager does not watch fails": {
			o:     with(observed(aRun().Obj(), nil), func(o *observation) { o.notWatched = true }),
			conds: conds(dcReadyCond, "False/InvalidSpec")},
		"a run waits for a datacenter that has not opted in": {
			o:       observed(aRun().Obj(), aDC().Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Annotations = nil }).Obj()),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterNotOptedIn")},
		"a run queues while a live run holds the datacenter": {
			o:     with(observed(aRun().Obj(), aDC().LockedBy("bench/other").Obj()), func(o *observation) { o.holderAlive = true }),
			conds: conds(dcReadyCond, "False/DatacenterBusy")},
		"a run takes a stale lock whose run is gone or finished": {o: observed(aRun().Obj(), aDC().LockedBy("bench/gone").Obj()), dc: "lock=bench/r"},
		"a run queues behind an older run": {
			o:     with(observed(aRun().Obj(), aDC().Obj()), func(o *observation) { o.queueHead.Name, o.queuePosition = "older", 2 }),
			conds: conds(dcReadyCond, "False/DatacenterBusy")},

		// Refusing what cannot work, before the datacenter is touched.
		"a run naming an image the manager may not run fails": {o: observed(aRun().Image("evil.example/x:1").Obj(), aDC().Obj()),
			conds: conds(dcReadyCond, "False/ImageNotAllowed")},
		"a run naming an allowed image takes the lock": {
			o: with(observed(aRun().Image("registry.example/cassbench:2").Obj(), aDC().Obj()), func(o *observation) {
				o.allowedImages = []string{"registry.example/cassbench:*"}
			}), dc: "lock=bench/r"},
		"a run refuses a stopped datacenter": {
			o:     observed(aRun().Obj(), aDC().Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Stopped = true }).Obj()),
			conds: conds(dcReadyCond, "False/DatacenterUnsuitable")},
		"a run refuses to tune the config of a configSecret datacenter": {
			o:     observed(aRun().Obj(), aDC().Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ConfigSecret = "cfg" }).Obj()),
			conds: conds(dcReadyCond, "False/DatacenterUnsuitable")},
		"a run refuses a size below the rack count": {
			o: observed(aRun().Obj(), aDC().Apply(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Spec.Racks = []cassdcapi.Rack{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}
			}).Obj()), conds: conds(dcReadyCond, "False/DatacenterUnsuitable")},
		"a run refuses a replication factor above its size": {o: observed(aRun().ReplicationFactor(7).Obj(), aDC().Obj()),
			conds: conds(dcReadyCond, "False/DatacenterUnsuitable")},
		"a run refuses JVM options a Cassandra 3.11 datacenter would refuse": {
			o:     observed(aRun().JvmOptions(map[string]any{"max_heap_size": "8G"}).Obj(), aDC().ServerVersion("3.11.17").Obj()),
			conds: conds(dcReadyCond, "False/DatacenterUnsuitable")},
		"a run refuses to change the size and config of a K8ssandraCluster's datacenter": {o: observed(aRun().Obj(), k8ssandraManaged().Obj()),
			conds: conds(dcReadyCond, "False/DatacenterManagedByK8ssandra")},
		"a run asking a K8ssandraCluster's datacenter for what it has takes it as any": {
			o: observed(aRun().Size(3).CassandraYaml(map[string]any{"concurrent_writes": 32}).Obj(), k8ssandraManaged().Obj()), dc: "lock=bench/r"},
		"a run from another namespace may not set free-form JVM flags": {o: with(observed(aRun().Apply(func(r *cbv1.BenchmarkRun) {
			r.Namespace, r.Spec.DatacenterRef.Namespace = "team-b", "bench"
			r.Spec.Connection = &cbv1.ConnectionSpec{CredentialsSecretRef: &corev1.LocalObjectReference{Name: "mine"}}
		}).JvmOptions(map[string]any{"additional-jvm-opts": []any{"-javaagent:/x.jar"}}).Obj(), aDC().AllowBenchmarks("bench,team-b").Obj()),
			func(o *observation) { o.queueHead = types.NamespacedName{Namespace: "team-b", Name: "r"} }),
			conds: conds(dcReadyCond, "False/SettingNotAllowed")},
	})
}

func TestDecidePreparesTheDatacenter(t *testing.T) {
	setupOK, preflightBad := setupReports(t)
	testDecide(t, map[string]decideCase{
		// Recording, checking, patching.
		"a run that holds the lock records the originals before any change": {o: observed(aRun().Obj(), ours().Obj()),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st == nil || *st.OriginalSize != 3 || compact(st.OriginalConfig.Raw) != compact(json.RawMessage(origConfig)) || s.status.StartTime == nil {
					t.Errorf("originals not recorded: %+v", st)
				}
			}},
		"a run that recorded the originals checks the settings first": {o: observed(recorded().Obj(), ours().Obj()), create: jobs.ComponentPreflight,
			conds: conds(dcReadyCond, "False/CheckingSettings")},
		"a run whose setting does not exist fails before the datacenter changes": {
			o:     withPods(observed(recorded().Obj(), ours().Obj(), failedJob(jobs.ComponentPreflight)), jobs.ComponentPreflight, pod(preflightJob, 0, 1, preflightBad)),
			conds: conds(dcReadyCond, "False/SettingsInvalid")},
		"a run whose settings exist patches size and config": {
			o:  withPods(observed(recorded().Obj(), ours().Obj(), preflightDone), jobs.ComponentPreflight, pod(preflightJob, 0, 0, setupOK)),
			dc: "size=5 config=" + compact(json.RawMessage(targetConfig))},
		"a run waits to change the size while cass-operator scales": {
			o: withPods(observed(recorded().Obj(), ours().Condition(cassdcapi.DatacenterScalingUp, pending).Obj(), preflightDone),
				jobs.ComponentPreflight, pod(preflightJob, 0, 0, setupOK)),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"a run checks its settings only after the previous run's restore has rolled out": {
			o: observed(recorded().Obj(), ours().Condition(cassdcapi.DatacenterRollingRestart, pending).Apply(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Status.CassandraOperatorProgress = cassdcapi.ProgressUpdating
			}).Obj()),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		"a run that crashed after its patch records the datacenter at the target instead of patching again": {
			o: observed(recorded().Obj(), atTarget(ours()).Obj()),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st.PatchedGeneration != 5 || !st.Changed || st.Size != 5 {
					t.Errorf("patch not recorded from state: %+v", st)
				}
			}},
		"a run waits for cass-operator to apply its patch": {
			o:       observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Status.ObservedGeneration = 4 }).Obj()),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating")},
		// cass-operator v1.31.0 can write the run's generation as observed from a reconcile
		// that read the datacenter before the patch, and then hold the StatefulSet back: every
		// condition says ready while the pods run the earlier config. The pods' rendered config
		// keeps the run waiting, and the run lets cass-operator roll the change out.
		"a run waits, and lets cass-operator roll out, while the pods run the earlier config": {
			o:       with(observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Obj()), func(o *observation) { o.dcPods = renderedConfig(32) }),
			requeue: true, dc: "autoupdate=once", conds: conds(dcReadyCond, "False/DatacenterUpdating"),
			check: messageSays(dcReadyCond, "c1-dc1-r1-sts-0 (its config has cassandra-yaml.concurrent_writes 32, the datacenter's spec sets 64)")},
		"a run whose datacenter reports ready and runs the new config on every pod starts setup": {
			o:      with(observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Obj()), func(o *observation) { o.dcPods = renderedConfig(64) }),
			create: "setup", conds: conds(dcReadyCond, "True/DatacenterReady")},
		// A pod the StatefulSet controller replaces is terminating while cass-operator's
		// conditions still say ready: setup would find no node behind the service.
		"a run waits while a pod of a datacenter that reports ready restarts": {
			o: with(observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Obj()), func(o *observation) {
				o.dcPendingPods = []string{"c1-dc1-r1-sts-0 (Running; terminating)"}
			}),
			requeue: true, conds: conds(dcReadyCond, "False/DatacenterUpdating"),
			check: messageSays(dcReadyCond, "pods are not ready; pods not ready: c1-dc1-r1-sts-0 (Running; terminating)")},
		"a run fails at the prepare deadline when cass-operator never finishes": {
			o:     at(observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Condition(cassdcapi.DatacenterUpdating, pending).Obj()), 31*time.Minute),
			conds: conds(dcReadyCond, "False/PrepareDeadlineExceeded")},
		"a run failing at the prepare deadline names the pod that refused its config": {
			o: with(at(observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Condition(cassdcapi.DatacenterUpdating, pending).Obj()), 31*time.Minute),
				func(o *observation) {
					o.dcPendingPods = []string{"c1-dc1-r1-sts-0 (Running; container cassandra running, not ready)"}
				}),
			conds: conds(dcReadyCond, "False/PrepareDeadlineExceeded"),
			check: messageSays(dcReadyCond, "pods not ready: c1-dc1-r1-sts-0 (Running; container cassandra running, not ready)")},
		"a run fails when cass-operator marks the datacenter invalid": {
			o: observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Apply(func(dc *cassdcapi.CassandraDatacenter) {
				dc.SetCondition(cassdcapi.DatacenterCondition{Type: cassdcapi.DatacenterValid, Status: corev1.ConditionFalse, Message: "bad"})
			}).Obj()), conds: conds(dcReadyCond, "False/DatacenterInvalid")},
		"a run starts setup once the datacenter is ready": {o: observed(recorded().Patched(5, 5).Obj(), atTarget(ours()).Obj()), create: jobs.ComponentSetup,
			conds: conds(dcReadyCond, "True/DatacenterReady", schemaCond, "False/SetupRunning")},
		"a run waits for the pod of a setup Job that just finished": {
			o:       observed(ready().Obj(), atTarget(ours()).Obj(), done(jobs.ComponentSetup, 4*time.Minute+50*time.Second)),
			requeue: true, conds: conds(schemaCond, "False/SetupRunning")},
		"a run fails when setup finished long ago without a report": {
			o:     observed(ready().Obj(), atTarget(ours()).Obj(), done(jobs.ComponentSetup, time.Minute)),
			conds: conds(schemaCond, "False/SetupFailed")},

		// After ready: readiness no longer gates, drift fails the run.
		"a rolling restart after the datacenter was ready does not fail the run": {
			o: observed(setUp().Apply(func(r *cbv1.BenchmarkRun) { r.Spec.Deadlines.Prepare = &metav1.Duration{Duration: time.Minute} }).Obj(),
				atTarget(ours()).Condition(cassdcapi.DatacenterRollingRestart, pending).Obj(), writerJob),
			conds: conds(dcReadyCond, "True/DatacenterReady", writersCond, "False/WritersRunning"), requeue: true},
		"a run fails when someone changes the size mid-run": {
			o:     observed(setUp().Obj(), atTarget(ours()).Size(3).Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Generation = 6 }).Obj(), writerJob),
			conds: conds(dcReadyCond, "False/DatacenterDrifted")},
		"a run fails when someone changes the spec mid-run": {
			o:     observed(setUp().Obj(), atTarget(ours()).Apply(func(dc *cassdcapi.CassandraDatacenter) { dc.Generation = 6 }).Obj(), writerJob),
			conds: conds(dcReadyCond, "False/DatacenterDrifted")},
	})
}

func TestDecideRunsTheJobs(t *testing.T) {
	storedReports := func(run *cbv1.BenchmarkRun) {
		run.Status.WriterReports = []cbv1.WriterReport{{Index: 0, Summary: summaryOf(t, 0, 1000)}, {Index: 1, Summary: summaryOf(t, 1, 2000)}}
	}
	testDecide(t, map[string]decideCase{
		// Ownership and results.
		"a run deletes, and does not adopt, a Job an earlier run of its name left": {
			o: observed(setUp().Obj(), atTarget(ours()).Obj(), leftBehind(jobs.ComponentWriter).Obj()), deleteForeign: jobs.Name("r", jobs.ComponentWriter)},
		"a run names a preflight pod that reads a missing Secret while the grace runs": {
			o: withPods(observed(recorded().Obj(), ours().Obj(), preflightJob), jobs.ComponentPreflight,
				waiting(preflightJob, 0, 4*time.Minute, "CreateContainerConfigError", `secret "creds" not found`)),
			requeue: true, conds: conds(dcReadyCond, "False/CheckingSettings"),
			check: func(t *testing.T, s step) {
				messageSays(dcReadyCond, `CreateContainerConfigError: secret "creds" not found`)(t, s)
				// The pod was created at t0+4m with a grace of 2m: look again at t0+6m.
				if s.requeueAfter > time.Minute+2*time.Second {
					t.Errorf("requeue after %s, want at the grace's end (1m)", s.requeueAfter)
				}
			}},
		"a run fails, the datacenter untouched, when a preflight pod that reads a missing Secret does not start within the grace": {
			o: withPods(observed(recorded().Obj(), ours().Obj(), preflightJob), jobs.ComponentPreflight,
				waiting(preflightJob, 0, 2*time.Minute, "CreateContainerConfigError", `secret "creds" not found`)),
			conds: conds(dcReadyCond, "False/PodsNotStarting")},
		"a run that failed for a pod that did not start stops its writers first": {
			o: observed(failed(setUp(), writersCond, cbv1.ReasonPodsNotStarting).Obj(), atTarget(ours()).Obj(), writerJob), stop: []string{writerJob.Name}, requeue: true},
		"a run fails at once for a setup pod whose image name is invalid": {
			o: withPods(observed(ready().Obj(), atTarget(ours()).Obj(), setupJob), jobs.ComponentSetup,
				waiting(setupJob, 0, 5*time.Minute, "InvalidImageName", `invalid reference format`)),
			conds: conds(schemaCond, "False/PodsNotStarting")},
		"a run names an unschedulable writer and leaves it to the deadlines": {
			o: withPods(observed(setUp().Obj(), atTarget(ours()).Obj(), writerJob), jobs.ComponentWriter,
				waiting(writerJob, 1, 0, corev1.PodReasonUnschedulable, "0/3 nodes are available: 3 Insufficient cpu")),
			requeue: true, conds: conds(writersCond, "False/WritersRunning"), check: messageSays(writersCond, "Insufficient cpu")},
		"a run fails after the grace for a writer whose image cannot be pulled, keeping the reported results": {
			o: withPods(observed(setUp().Obj(), atTarget(ours()).Obj(), writerJob), jobs.ComponentWriter, pod(writerJob, 0, 0, summaryOf(t, 0, 1000)),
				waiting(writerJob, 1, 2*time.Minute, "ImagePullBackOff", `Back-off pulling image "cassbench:1"`)),
			conds: conds(writersCond, "False/PodsNotStarting"),
			check: func(t *testing.T, s step) {
				if s.status.Results == nil || s.status.Results.Operations != 1000 {
					t.Errorf("the reported writer's results were not kept: %+v", s.status.Results)
				}
			}},
		"a run stores a writer's report the first time it reads it": {
			o: withPods(observed(setUp().Obj(), atTarget(ours()).Obj(), writerJob), jobs.ComponentWriter, pod(writerJob, 0, 0, summaryOf(t, 0, 1000))), requeue: true,
			check: func(t *testing.T, s step) {
				if len(s.status.WriterReports) != 1 || s.status.WriterReports[0].PodUID == "" || s.status.Results == nil || s.status.Results.Operations != 1000 {
					t.Errorf("report not stored: %+v results %+v", s.status.WriterReports, s.status.Results)
				}
			}},
		"a run's stored reports survive their pods": {o: observed(setUp().Apply(storedReports).Obj(), atTarget(ours()).Obj(), done(jobs.ComponentWriter, 0)),
			conds: conds(writersCond, "True/WritersSucceeded"),
			check: func(t *testing.T, s step) {
				if s.status.Results == nil || s.status.Results.Operations != 3000 {
					t.Errorf("results %+v", s.status.Results)
				}
			}},
		"a run fails when its writers pass the run deadline": {o: at(observed(setUp().Obj(), atTarget(ours()).Obj(), writerJob), 2*time.Hour),
			conds: conds(writersCond, "False/RunDeadlineExceeded")},
	})
}

func TestDecideGivesTheDatacenterBack(t *testing.T) {
	setupOK, _ := setupReports(t)
	testDecide(t, map[string]decideCase{
		// Giving back.
		"a run that succeeded restores and releases in one patch": {o: observed(loaded().Obj(), atTarget(ours()).Obj(), done(jobs.ComponentWriter, 0)),
			dc: restored, conds: conds(restoredCond, "True/Restored", cbv1.ConditionSucceeded, "True/Succeeded")},
		"a failed run stops its running writers before anything is released": {
			o:    observed(failed(setUp(), writersCond, cbv1.ReasonWriterFailed).Obj(), atTarget(ours()).Obj(), writerJob),
			stop: []string{writerJob.Name}, requeue: true, conds: conds(restoredCond, "False/StoppingJobs"),
			check: func(t *testing.T, s step) {
				if meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionSucceeded) != nil {
					t.Error("finished before the writers stopped")
				}
			}},
		"a failed run whose writers stopped restores and releases": {
			o:  observed(failed(setUp(), writersCond, cbv1.ReasonWriterFailed).Obj(), atTarget(ours()).Obj(), suspendedWriter),
			dc: restored, conds: conds(restoredCond, "True/Restored", cbv1.ConditionSucceeded, "False/WriterFailed")},
		"a run restores the config now and the size later while cass-operator scales": {
			o:  observed(failed(recorded().Patched(5, 5), writersCond, cbv1.ReasonWriterFailed).Obj(), atTarget(ours()).Condition(cassdcapi.DatacenterScalingUp, pending).Obj()),
			dc: "config=" + compact(json.RawMessage(origConfig)), requeue: true, conds: conds(restoredCond, "False/Restoring")},
		"a run whose restore is still blocked at the deadline releases the datacenter as RestoreStuck": {
			o: with(at(observed(failed(recorded().Patched(5, 5), writersCond, cbv1.ReasonWriterFailed).Obj(),
				atTarget(ours()).Condition(cassdcapi.DatacenterScalingUp, pending).Obj()), time.Hour), func(o *observation) {
				o.dcPendingPods = []string{"c1-dc1-r1-sts-4 (Pending: 0/3 nodes are available: insufficient cpu)"}
			}),
			dc:    "config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: conds(restoredCond, "False/RestoreStuck", cbv1.ConditionSucceeded, "False/WriterFailed"),
			check: func(t *testing.T, s step) {
				for _, want := range []string{"dc1-r1-sts-4 is Pending", "c1-dc1-r1-sts-4 (Pending: 0/3 nodes", "spec.size back to 3"} {
					messageSays(restoredCond, want)(t, s)
				}
			}},
		"a run that released earlier but lost the status write finds the datacenter restored": {
			o:     observed(recorded().Patched(5, 5).Condition(writersCond, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC().Obj()),
			conds: conds(restoredCond, "True/Restored", cbv1.ConditionSucceeded, "True/Succeeded")},
		"a run that crashed after its patch and then failed restores from what it finds": {
			o:  observed(failed(recorded(), dcReadyCond, cbv1.ReasonPrepareDeadlineExceeded).Obj(), atTarget(ours()).Obj()),
			dc: restored, conds: conds(restoredCond, "True/Restored")},
		"a run whose lock another run took before the restore touches nothing": {
			o:     observed(recorded().Patched(5, 5).Condition(writersCond, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), atTarget(aDC().LockedBy("bench/other")).Obj()),
			conds: conds(restoredCond, "False/LockLost")},
		"a run restores its config and leaves someone else's size": {
			o:     observed(recorded().Patched(5, 5).Condition(writersCond, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), atTarget(ours()).Size(7).Obj()),
			dc:    "config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: conds(restoredCond, "False/DatacenterDrifted", cbv1.ConditionSucceeded, "True/Succeeded")},

		// A sweep with restore atEnd lends its datacenter to its own runs.
		"a run its sweep lends the datacenter to records the sweep's originals and takes no lock": {
			o: lent(observed(aRun().Obj(), atTarget(aDC().LockedBy(sweepLock)).Obj())),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st == nil || *st.OriginalSize != 3 || compact(st.OriginalConfig.Raw) != compact(json.RawMessage(origConfig)) || s.dc != nil {
					t.Errorf("want the sweep's originals (3, %s) and no change; got %+v, change %q", origConfig, st, describe(s.dc))
				}
			}},
		"a lent run finding the datacenter at its target from the previous point patches and checks nothing": {
			o: lent(observed(recorded().Obj(), atTarget(aDC().LockedBy(sweepLock)).Obj())),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st.PatchedGeneration != 5 || !st.Changed {
					t.Errorf("the datacenter at the target is not taken as patched: %+v", st)
				}
			}},
		"a lent run whose point changes only the size patches it with the config the datacenter has": {
			o: lent(withPods(observed(recorded().Size(4).Obj(), atTarget(aDC().LockedBy(sweepLock)).Obj(), preflightDone),
				jobs.ComponentPreflight, pod(preflightJob, 0, 0, setupOK))),
			dc: "size=4 config=" + compact(json.RawMessage(targetConfig))},
		"a lent run that is done leaves the datacenter, locked, to the sweep": {o: lent(observed(loaded().Obj(), atTarget(aDC().LockedBy(sweepLock)).Obj())),
			conds: conds(restoredCond, "True/HeldBySweep", cbv1.ConditionSucceeded, "True/Succeeded")},
		"a deleted lent run stops its Jobs and leaves the datacenter to the sweep": {
			o:    lent(observed(setUp().Deleting(t0.Add(time.Hour)).Obj(), atTarget(aDC().LockedBy(sweepLock)).Obj(), writerJob)),
			stop: []string{"r-writer"}, requeue: true, conds: conds(restoredCond, "False/StoppingJobs")},
		"a run queues while another sweep holds the datacenter for its runs": {
			o:     with(observed(aRun().Obj(), aDC().LockedBy(sweepLock).Obj()), func(o *observation) { o.holderAlive = true }),
			conds: conds(dcReadyCond, "False/DatacenterBusy"), check: messageSays(dcReadyCond, "BenchmarkSweep bench/sw")},
		"a run with keepChanges releases the datacenter without restoring it": {
			o:  observed(recorded().Patched(5, 5).Condition(writersCond, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).KeepChanges().Obj(), atTarget(ours()).Obj()),
			dc: "lock=-", conds: conds(restoredCond, "True/KeptChanges")},
		"a run whose restore was refused releases the datacenter and names the refusal": {
			o: observed(failed(recorded().Patched(5, 5).Condition(writersCond, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1), restoredCond, cbv1.ReasonRefused).Obj(),
				atTarget(ours()).Obj()),
			dc: "lock=-", conds: conds(restoredCond, "False/Refused", cbv1.ConditionSucceeded, "True/Succeeded")},
		"a run that failed before taking the datacenter gives nothing back and marks the later stages not reached": {
			o: observed(failed(aRun(), dcReadyCond, cbv1.ReasonImageNotAllowed).Obj(), aDC().Obj()),
			conds: conds(restoredCond, "True/NothingToRestore", cbv1.ConditionSucceeded, "False/ImageNotAllowed",
				schemaCond, "False/NotReached", writersCond, "False/NotReached")},
		// The apiserver refused the writer Job in the pass that saw setup finish; the refusal
		// keeps the status that pass read, whose SchemaReady still said the setup was running.
		"a run whose writer Job was refused says the stage it left mid-way was stopped": {
			o: observed(failed(ready().Apply(func(r *cbv1.BenchmarkRun) {
				meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: cbv1.ConditionSchemaReady, Status: metav1.ConditionFalse,
					Reason: cbv1.ReasonSetupRunning, Message: "Job r-setup is verifying settings and creating the schema"})
			}), writersCond, cbv1.ReasonRefused).Obj(), atTarget(ours()).Obj(), done(jobs.ComponentSetup, 0)),
			dc:    restored,
			conds: conds(schemaCond, "False/Stopped", writersCond, "False/Refused", restoredCond, "True/Restored", cbv1.ConditionSucceeded, "False/Refused"),
			check: messageSays(schemaCond, "stopped when the run failed (Refused; see condition Succeeded); it was at: Job r-setup is verifying")},
		"a run that failed after locking and before recording releases the lock": {
			o:  observed(failed(aRun(), dcReadyCond, cbv1.ReasonRefused).Obj(), ours().Obj()),
			dc: "lock=-", conds: conds(restoredCond, "True/NothingToRestore")},
		"a run deleted mid-run stops its writers first": {
			o: observed(setUp().Deleting(t0.Add(time.Hour)).Obj(), atTarget(ours()).Obj(), writerJob), stop: []string{writerJob.Name}, requeue: true},
		"a run deleted mid-run, its writers stopped, gives the datacenter back and lets its finalizer go": {
			o:  observed(setUp().Deleting(t0.Add(time.Hour)).Obj(), atTarget(ours()).Obj(), suspendedWriter),
			dc: restored, removeFinalizer: true},
		"a run deleted after its datacenter lets its finalizer go": {o: observed(recorded().Patched(5, 5).Deleting(t0.Add(time.Hour)).Obj(), nil),
			removeFinalizer: true, conds: conds(restoredCond, "True/NothingToRestore")},
		"a finished run lets its finalizer go": {
			o: observed(loaded().Condition(restoredCond, metav1.ConditionTrue, cbv1.ReasonRestored, t1).
				Condition(cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded, t1).Obj(), aDC().Obj()),
			removeFinalizer: true},
	})
}

// testDecide runs the rows: decide leaves the observation as it was and chooses what the row
// wants; a run that finished tells how each stage ended.
func testDecide(t *testing.T, cases map[string]decideCase) {
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := tc.o.run.DeepCopy()
			s := decide(tc.o)
			if !equalRuns(before, tc.o.run) {
				t.Fatal("decide changed the observed run")
			}
			if got := describe(s.dc); got != tc.dc {
				t.Errorf("datacenter change %q, want %q", got, tc.dc)
			}
			created := ""
			if s.create != nil {
				created = s.create.Labels[cbv1.ComponentLabel]
			}
			if created != tc.create {
				t.Errorf("creates %q, want %q", created, tc.create)
			}
			var stopped []string
			for _, j := range s.stop {
				stopped = append(stopped, j.Name)
			}
			if strings.Join(stopped, ",") != strings.Join(tc.stop, ",") {
				t.Errorf("stops %v, want %v", stopped, tc.stop)
			}
			deleted := ""
			if s.deleteForeign != nil {
				deleted = s.deleteForeign.Name
			}
			if deleted != tc.deleteForeign {
				t.Errorf("deletes %q, want %q", deleted, tc.deleteForeign)
			}
			if s.addFinalizer != tc.addFinalizer || s.removeFinalizer != tc.removeFinalizer {
				t.Errorf("finalizer add %t remove %t, want %t %t", s.addFinalizer, s.removeFinalizer, tc.addFinalizer, tc.removeFinalizer)
			}
			if (s.requeueAfter > 0) != tc.requeue {
				t.Errorf("requeue after %s, want requeue %t", s.requeueAfter, tc.requeue)
			}
			var got []string
			for ct, want := range tc.conds {
				c := meta.FindStatusCondition(s.status.Conditions, ct)
				if c == nil {
					got = append(got, fmt.Sprintf("%s missing, want %s", ct, want))
				} else if g := string(c.Status) + "/" + c.Reason; g != want {
					got = append(got, fmt.Sprintf("%s is %s (%s), want %s", ct, g, c.Message, want))
				}
			}
			sort.Strings(got)
			for _, g := range got {
				t.Error(g)
			}
			assertEnded(t, s.status.Conditions)
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

// assertEnded holds a finished run to telling how each stage ended: every stage has its
// condition, and none keeps a reason that says it is under way.
