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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

// The whole lifecycle of a run, one row per state and per fault: what decide does next. The
// fixtures the rows are built with are in benchmarkrun_decide_fixtures_test.go.

func TestDecide(t *testing.T) {
	summaryOf := func(index int32, ok int64) string {
		return play.WriterSummary(t, index, 2, ok, "")
	}
	setupOK := play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 5})
	preflightBad := play.SetupReport(t, summary.SetupReport{Error: `setting "concurent_writes" is not a Cassandra setting`})
	writer := job(jobs.ComponentWriter, false, false, false)
	writerDone := job(jobs.ComponentWriter, true, false, false)
	suspended := job(jobs.ComponentWriter, false, false, false)
	suspended.Spec.Suspend, suspended.Status.Active = ptr.To(true), 0
	storedReports := func(run *cbv1.BenchmarkRun) {
		run.Status.WriterReports = []cbv1.WriterReport{{Index: 0, Summary: summaryOf(0, 1000)}, {Index: 1, Summary: summaryOf(1, 2000)}}
	}

	cases := map[string]struct {
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
	}{
		// Finding and taking the datacenter.
		"new run: finalizer, then the lock": {o: observed(aRun().Apply(func(run *cbv1.BenchmarkRun) { run.Finalizers = nil }).Obj(), aDC()), addFinalizer: true, dc: "lock=bench/r",
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		"datacenter missing": {o: observed(aRun().Obj(), nil), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterNotFound"}},
		"datacenter missing past the deadline": {o: at(observed(aRun().Obj(), nil), 31*time.Minute),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PrepareDeadlineExceeded"}},
		"datacenter in a namespace the manager does not watch": {o: func() observation { o := observed(aRun().Obj(), nil); o.notWatched = true; return o }(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/InvalidSpec"}},
		"datacenter not opted in": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Annotations = nil })), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterNotOptedIn"}},
		"held by a live run": {o: func() observation {
			o := observed(aRun().Obj(), aDC(lockedBy("bench/other")))
			o.holderAlive = true
			return o
		}(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterBusy"}},
		"a stale lock (its run gone or finished) is taken": {o: observed(aRun().Obj(), aDC(lockedBy("bench/gone"))), dc: "lock=bench/r"},
		"queued behind an older run": {o: func() observation {
			o := observed(aRun().Obj(), aDC())
			o.queueHead.Name = "older"
			o.queuePosition = 2
			return o
		}(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterBusy"}},

		// Refusing what cannot work, before the datacenter is touched.
		"an image the manager may not run": {o: observed(aRun().Image("evil.example/x:1").Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/ImageNotAllowed"}},
		"an allowed image": {o: func() observation {
			o := observed(aRun().Image("registry.example/cassbench:2").Obj(), aDC())
			o.allowedImages = []string{"registry.example/cassbench:*"}
			return o
		}(), dc: "lock=bench/r"},
		"a stopped datacenter": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Stopped = true })),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"config tuning on a configSecret datacenter": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ConfigSecret = "cfg" })),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"size below the rack count": {o: observed(aRun().Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) {
			dc.Spec.Racks = []cassdcapi.Rack{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}
		})), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"replication factor above the run's size": {o: observed(aRun().ReplicationFactor(7).Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"JVM options a Cassandra 3.11 datacenter refuses": {o: observed(aRun().Apply(func(r *cbv1.BenchmarkRun) {
			r.Spec.Datacenter.Config.JvmServerOptions = &runtime.RawExtension{Raw: []byte(`{"max_heap_size":"8G"}`)}
		}).Obj(), aDC(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ServerVersion = "3.11.17" })),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUnsuitable"}},
		"a size and config change on a K8ssandraCluster's datacenter": {o: observed(aRun().Obj(), aDC(k8ssandraManaged)),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterManagedByK8ssandra"}},
		"what a K8ssandraCluster's datacenter has: taken as any": {o: observed(aRun().Size(3).CassandraYaml(map[string]any{"concurrent_writes": 32}).Obj(),
			aDC(k8ssandraManaged)), dc: "lock=bench/r"},

		"free-form JVM flags from another namespace": {o: func() observation {
			run := aRun().Apply(func(r *cbv1.BenchmarkRun) {
				r.Namespace = "team-b"
				r.Spec.DatacenterRef.Namespace = "bench"
				r.Spec.Connection = &cbv1.ConnectionSpec{CredentialsSecretRef: &corev1.LocalObjectReference{Name: "mine"}}
				r.Spec.Datacenter.Config.JvmServerOptions = &runtime.RawExtension{Raw: []byte(`{"additional-jvm-opts":["-javaagent:/x.jar"]}`)}
			}).Obj()
			o := observed(run, aDC(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Annotations[cbv1.AllowBenchmarksAnnotation] = "bench,team-b"
			}))
			o.queueHead = types.NamespacedName{Namespace: "team-b", Name: "r"}
			return o
		}(), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/SettingNotAllowed"}},

		// Recording, checking, patching.
		"locked: the originals are recorded before any change": {o: observed(aRun().Obj(), aDC(mine)),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st == nil || *st.OriginalSize != 3 || compact(st.OriginalConfig.Raw) != compact(json.RawMessage(origConfig)) || s.status.StartTime == nil {
					t.Errorf("originals not recorded: %+v", st)
				}
			}},
		"recorded: the settings are checked first": {o: observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine)), create: jobs.ComponentPreflight,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/CheckingSettings"}},
		"a setting does not exist": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine), job(jobs.ComponentPreflight, true, true, false)),
			jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, true, false), 0, 1, preflightBad)),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/SettingsInvalid"}},
		"settings exist: size and config are patched": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine), job(jobs.ComponentPreflight, true, false, false)),
			jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, false, false), 0, 0, setupOK)),
			dc: "size=5 config=" + compact(json.RawMessage(targetConfig))},
		"cass-operator is scaling: the size waits": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine, dcCondition(cassdcapi.DatacenterScalingUp)), job(jobs.ComponentPreflight, true, false, false)),
			jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, false, false), 0, 0, setupOK)), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		"the previous run's restore still rolls: the settings are checked only after it": {o: observed(aRun().Recorded(t0, 3, origConfig).Obj(),
			aDC(mine, dcCondition(cassdcapi.DatacenterRollingRestart), func(dc *cassdcapi.CassandraDatacenter) {
				dc.Status.CassandraOperatorProgress = cassdcapi.ProgressUpdating
			})), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		"crash after the patch: the datacenter at the target is recorded, not patched again": {o: observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine, atTarget)),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st.PatchedGeneration != 5 || !st.Changed || st.Size != 5 {
					t.Errorf("patch not recorded from state: %+v", st)
				}
			}},
		"waiting for cass-operator to apply the patch": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Status.ObservedGeneration = 4 })),
			requeue: true, conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"}},
		// cass-operator v1.31.0 can write the run's generation as observed from a reconcile
		// that read the datacenter before the patch, and then hold the StatefulSet back: every
		// condition says ready while the pods run the earlier config. The pods' rendered config
		// keeps the run waiting, and the run lets cass-operator roll the change out.
		"ready by its status while the pods run the earlier config": {o: func() observation {
			o := observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget))
			o.dcPods = []corev1.Pod{*builders.MakePod("c1-dc1-r1-sts-0", "bench").Obj()}
			o.dcPods[0].Spec.InitContainers = []corev1.Container{{Name: "server-config-init", Env: []corev1.EnvVar{
				{Name: "CONFIG_FILE_DATA", Value: `{"cluster-info":{"name":"c1"},"cassandra-yaml":{"concurrent_writes":32}}`}}}}
			return o
		}(), requeue: true, dc: "autoupdate=once", conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, "c1-dc1-r1-sts-0 (its config has cassandra-yaml.concurrent_writes 32, the datacenter's spec sets 64)") {
					t.Errorf("message %q does not name the stale pod", c.Message)
				}
			}},
		"ready by its status and rolled out": {o: func() observation {
			o := observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget))
			o.dcPods = []corev1.Pod{*builders.MakePod("c1-dc1-r1-sts-0", "bench").Obj()}
			o.dcPods[0].Spec.InitContainers = []corev1.Container{{Name: "server-config-init", Env: []corev1.EnvVar{
				{Name: "CONFIG_FILE_DATA", Value: `{"cluster-info":{"name":"c1"},"cassandra-yaml":{"concurrent_writes":64}}`}}}}
			return o
		}(), create: "setup", conds: map[string]string{cbv1.ConditionDatacenterReady: "True/DatacenterReady"}},
		// A pod the StatefulSet controller replaces is terminating while cass-operator's
		// conditions still say ready: setup would find no node behind the service.
		"ready by its status while a pod restarts": {o: func() observation {
			o := observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget))
			o.dcPendingPods = []string{"c1-dc1-r1-sts-0 (Running; terminating)"}
			return o
		}(), requeue: true, conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterUpdating"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, "pods are not ready; pods not ready: c1-dc1-r1-sts-0 (Running; terminating)") {
					t.Errorf("message %q does not name the pod that is not ready", c.Message)
				}
			}},
		"cass-operator never finishes: the prepare deadline": {o: at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterUpdating))), 31*time.Minute),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PrepareDeadlineExceeded"}},
		"a node refuses its config: the prepare deadline names the pod": {o: func() observation {
			o := at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterUpdating))), 31*time.Minute)
			o.dcPendingPods = []string{"c1-dc1-r1-sts-0 (Running; container cassandra running, not ready)"}
			return o
		}(),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PrepareDeadlineExceeded"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, "pods not ready: c1-dc1-r1-sts-0 (Running; container cassandra running, not ready)") {
					t.Errorf("the deadline does not name the pod that is not ready: %s", c.Message)
				}
			}},
		"cass-operator marks the datacenter invalid": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) {
			dc.SetCondition(cassdcapi.DatacenterCondition{Type: cassdcapi.DatacenterValid, Status: corev1.ConditionFalse, Message: "bad"})
		})), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterInvalid"}},
		"ready: setup starts": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Obj(), aDC(mine, atTarget)), create: jobs.ComponentSetup,
			conds: map[string]string{cbv1.ConditionDatacenterReady: "True/DatacenterReady", cbv1.ConditionSchemaReady: "False/SetupRunning"}},

		"setup finished, its pod not seen yet: wait for it, not fail": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Obj(), aDC(mine, atTarget), finishedAt(job(jobs.ComponentSetup, true, false, false), 4*time.Minute+50*time.Second)),
			requeue: true, conds: map[string]string{cbv1.ConditionSchemaReady: "False/SetupRunning"}},
		"setup finished long ago without a report: failed": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Obj(), aDC(mine, atTarget), finishedAt(job(jobs.ComponentSetup, true, false, false), time.Minute)),
			conds: map[string]string{cbv1.ConditionSchemaReady: "False/SetupFailed"}},

		// After ready: readiness no longer gates, drift fails the run.
		"a rolling restart after ready does not fail the run": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Apply(func(r *cbv1.BenchmarkRun) {
			r.Spec.Deadlines.Prepare = &metav1.Duration{Duration: time.Minute}
		}).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterRollingRestart)), writer),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "True/DatacenterReady", cbv1.ConditionWritersComplete: "False/WritersRunning"}, requeue: true},
		"someone changes the size mid-run: drift": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Size, dc.Generation = 3, 6 }), writer),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterDrifted"}},
		"someone changes the spec mid-run: drift": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Generation = 6 }), writer),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterDrifted"}},

		// Ownership and results.
		"a Job left by an earlier run of the same name is deleted, not adopted": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), job(jobs.ComponentWriter, true, false, true)),
			deleteForeign: jobs.Name("r", jobs.ComponentWriter)},
		"a preflight pod that reads a missing Secret: named while the grace runs": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine),
			job(jobs.ComponentPreflight, false, false, false)), jobs.ComponentPreflight,
			waiting(job(jobs.ComponentPreflight, false, false, false), 0, 4*time.Minute, "CreateContainerConfigError", `secret "creds" not found`)),
			requeue: true, conds: map[string]string{cbv1.ConditionDatacenterReady: "False/CheckingSettings"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady)
				if !strings.Contains(c.Message, `CreateContainerConfigError: secret "creds" not found`) {
					t.Errorf("the waiting message does not say why the pod does not start: %s", c.Message)
				}
				// The pod was created at t0+4m with a grace of 2m: look again at t0+6m.
				if s.requeueAfter > time.Minute+2*time.Second {
					t.Errorf("requeue after %s, want at the grace's end (1m)", s.requeueAfter)
				}
			}},
		"a preflight pod that reads a missing Secret: failed after the grace, the datacenter untouched": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(mine),
			job(jobs.ComponentPreflight, false, false, false)), jobs.ComponentPreflight,
			waiting(job(jobs.ComponentPreflight, false, false, false), 0, 2*time.Minute, "CreateContainerConfigError", `secret "creds" not found`)),
			conds: map[string]string{cbv1.ConditionDatacenterReady: "False/PodsNotStarting"}},
		"failed for a pod that did not start: the writers stop first": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, "False", cbv1.ReasonPodsNotStarting, t1).Obj(), aDC(mine, atTarget), writer),
			stop: []string{writer.Name}, requeue: true},
		"a setup pod whose image name is invalid: failed at once": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Obj(), aDC(mine, atTarget),
			job(jobs.ComponentSetup, false, false, false)), jobs.ComponentSetup,
			waiting(job(jobs.ComponentSetup, false, false, false), 0, 5*time.Minute, "InvalidImageName", `invalid reference format`)),
			conds: map[string]string{cbv1.ConditionSchemaReady: "False/PodsNotStarting"}},
		"an unschedulable writer is named, and left to the deadlines": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer),
			jobs.ComponentWriter, waiting(writer, 1, 0, corev1.PodReasonUnschedulable, "0/3 nodes are available: 3 Insufficient cpu")),
			requeue: true, conds: map[string]string{cbv1.ConditionWritersComplete: "False/WritersRunning"},
			check: func(t *testing.T, s step) {
				if c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionWritersComplete); !strings.Contains(c.Message, "Insufficient cpu") {
					t.Errorf("the message does not name the unschedulable pod: %s", c.Message)
				}
			}},
		"a writer whose image cannot be pulled: failed after the grace, the reported results kept": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer),
			jobs.ComponentWriter, pod(writer, 0, 0, summaryOf(0, 1000)), waiting(writer, 1, 2*time.Minute, "ImagePullBackOff", `Back-off pulling image "cassbench:1"`)),
			conds: map[string]string{cbv1.ConditionWritersComplete: "False/PodsNotStarting"},
			check: func(t *testing.T, s step) {
				if s.status.Results == nil || s.status.Results.Operations != 1000 {
					t.Errorf("the reported writer's results were not kept: %+v", s.status.Results)
				}
			}},
		"a writer's report is stored the first time it is read": {o: withPods(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer),
			jobs.ComponentWriter, pod(writer, 0, 0, summaryOf(0, 1000))), requeue: true,
			check: func(t *testing.T, s step) {
				if len(s.status.WriterReports) != 1 || s.status.WriterReports[0].PodUID == "" || s.status.Results == nil || s.status.Results.Operations != 1000 {
					t.Errorf("report not stored: %+v results %+v", s.status.WriterReports, s.status.Results)
				}
			}},
		"stored reports survive their pods": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Apply(storedReports).Obj(), aDC(mine, atTarget), writerDone),
			conds: map[string]string{cbv1.ConditionWritersComplete: "True/WritersSucceeded"},
			check: func(t *testing.T, s step) {
				if s.status.Results == nil || s.status.Results.Operations != 3000 {
					t.Errorf("results %+v", s.status.Results)
				}
			}},
		"writers past the run deadline": {o: at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Obj(), aDC(mine, atTarget), writer), 2*time.Hour),
			conds: map[string]string{cbv1.ConditionWritersComplete: "False/RunDeadlineExceeded"}},

		// Giving back.
		"success: restore and release in one patch": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(mine, atTarget), writerDone),
			dc:    "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"failure with writers running: they stop before anything is released": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget), writer),
			stop: []string{writer.Name}, requeue: true, conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/StoppingJobs"},
			check: func(t *testing.T, s step) {
				if meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionSucceeded) != nil {
					t.Error("finished before the writers stopped")
				}
			}},
		"failure, writers stopped: restore and release": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget), suspended),
			dc:    "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "False/WriterFailed"}},
		"restore while cass-operator scales: the config now, the size later": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterScalingUp))),
			dc: "config=" + compact(json.RawMessage(origConfig)), requeue: true,
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/Restoring"}},
		"restore still blocked at the deadline: RestoreStuck, released": {o: func() observation {
			o := at(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWriterFailed, t1).Obj(), aDC(mine, atTarget, dcCondition(cassdcapi.DatacenterScalingUp))), time.Hour)
			o.dcPendingPods = []string{"c1-dc1-r1-sts-4 (Pending: 0/3 nodes are available: insufficient cpu)"}
			return o
		}(),
			dc:    "config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/RestoreStuck", cbv1.ConditionSucceeded: "False/WriterFailed"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterRestored)
				if !strings.Contains(c.Message, "dc1-r1-sts-4 is Pending") || !strings.Contains(c.Message, "c1-dc1-r1-sts-4 (Pending: 0/3 nodes") ||
					!strings.Contains(c.Message, "spec.size back to 3") {
					t.Errorf("RestoreStuck does not say what is pending and what to do: %s", c.Message)
				}
			}},
		"released earlier but the status write was lost": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"crash after the patch, then a failure: restored from state": {o: observed(aRun().Recorded(t0, 3, origConfig).Condition(cbv1.ConditionDatacenterReady, "False", cbv1.ReasonPrepareDeadlineExceeded, t1).Obj(), aDC(mine, atTarget)),
			dc:    "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/Restored"}},
		"the lock was taken by another run before the restore": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(lockedBy("bench/other"), atTarget)),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/LockLost"}},
		"someone else's size is left, the run's config restored": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(mine, atTarget, func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Size = 7 })),
			dc:    "config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/DatacenterDrifted", cbv1.ConditionSucceeded: "True/Succeeded"}},
		// A sweep with restore atEnd lends its datacenter to its own runs.
		"lent by its sweep: no lock taken, the sweep's originals recorded": {o: lent(observed(aRun().Obj(), aDC(sweepLock, atTarget))),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st == nil || *st.OriginalSize != 3 || compact(st.OriginalConfig.Raw) != compact(json.RawMessage(origConfig)) || s.dc != nil {
					t.Errorf("want the sweep's originals (3, %s) and no change; got %+v, change %q", origConfig, st, describe(s.dc))
				}
			}},
		"lent, and the previous point left the datacenter at this point's target: nothing patched, nothing checked": {
			o: lent(observed(aRun().Recorded(t0, 3, origConfig).Obj(), aDC(sweepLock, atTarget))),
			check: func(t *testing.T, s step) {
				if st := s.status.Datacenter; st.PatchedGeneration != 5 || !st.Changed {
					t.Errorf("the datacenter at the target is not taken as patched: %+v", st)
				}
			}},
		"lent, and this point changes only the size: its target keeps the config the datacenter has, so the merge patch carries only the size": {
			o: lent(withPods(observed(aRun().Recorded(t0, 3, origConfig).Size(4).Obj(),
				aDC(sweepLock, atTarget), job(jobs.ComponentPreflight, true, false, false)),
				jobs.ComponentPreflight, pod(job(jobs.ComponentPreflight, true, false, false), 0, 0, setupOK))),
			dc: "size=4 config=" + compact(json.RawMessage(targetConfig))},
		"lent, writers done: the datacenter is left to the sweep, locked": {o: lent(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Obj(), aDC(sweepLock, atTarget))),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/HeldBySweep", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"lent, deleted: Jobs stopped, the datacenter left to the sweep": {o: lent(observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Deleting(t0.Add(time.Hour)).Obj(), aDC(sweepLock, atTarget), writer)),
			stop: []string{"r-writer"}, requeue: true, conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/StoppingJobs"}},
		"a sweep's lock held for another sweep's runs: busy": {o: func() observation {
			o := observed(aRun().Obj(), aDC(sweepLock))
			o.holderAlive = true
			return o
		}(), conds: map[string]string{cbv1.ConditionDatacenterReady: "False/DatacenterBusy"},
			check: func(t *testing.T, s step) {
				if c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionDatacenterReady); !strings.Contains(c.Message, "BenchmarkSweep bench/sw") {
					t.Errorf("the busy message does not name the sweep: %s", c.Message)
				}
			}},
		"keepChanges: released, not restored": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).KeepChanges().Obj(), aDC(mine, atTarget)),
			dc: "lock=-", conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/KeptChanges"}},
		"the restore was refused: released, named": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Condition(cbv1.ConditionDatacenterRestored, "False", cbv1.ReasonRefused, t1).Obj(), aDC(mine, atTarget)),
			dc: "lock=-", conds: map[string]string{cbv1.ConditionDatacenterRestored: "False/Refused", cbv1.ConditionSucceeded: "True/Succeeded"}},
		"failed before taking the datacenter: nothing to give back, the later stages not reached": {o: observed(aRun().Condition(cbv1.ConditionDatacenterReady, "False", cbv1.ReasonImageNotAllowed, t1).Obj(), aDC()),
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/NothingToRestore", cbv1.ConditionSucceeded: "False/ImageNotAllowed",
				cbv1.ConditionSchemaReady: "False/NotReached", cbv1.ConditionWritersComplete: "False/NotReached"}},
		// The apiserver refused the writer Job in the pass that saw setup finish; the refusal
		// keeps the status that pass read, whose SchemaReady still said the setup was running.
		"the writer Job was refused: the stage left mid-way says it was stopped": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Apply(func(r *cbv1.BenchmarkRun) {
			meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: cbv1.ConditionSchemaReady, Status: metav1.ConditionFalse,
				Reason: cbv1.ReasonSetupRunning, Message: "Job r-setup is verifying settings and creating the schema"})
		}).Condition(cbv1.ConditionWritersComplete, "False", cbv1.ReasonRefused, t1).Obj(), aDC(mine, atTarget), job(jobs.ComponentSetup, true, false, false)),
			dc: "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-",
			conds: map[string]string{cbv1.ConditionSchemaReady: "False/Stopped", cbv1.ConditionWritersComplete: "False/Refused",
				cbv1.ConditionDatacenterRestored: "True/Restored", cbv1.ConditionSucceeded: "False/Refused"},
			check: func(t *testing.T, s step) {
				c := meta.FindStatusCondition(s.status.Conditions, cbv1.ConditionSchemaReady)
				if want := "stopped when the run failed (Refused; see condition Succeeded); it was at: Job r-setup is verifying"; !strings.HasPrefix(c.Message, want) {
					t.Errorf("SchemaReady says %q, want it to start %q", c.Message, want)
				}
			}},
		"locked, then failed before recording: the lock is released": {o: observed(aRun().Condition(cbv1.ConditionDatacenterReady, "False", cbv1.ReasonRefused, t1).Obj(), aDC(mine)),
			dc: "lock=-", conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/NothingToRestore"}},
		"deleted mid-run: writers stop first": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Deleting(t0.Add(time.Hour)).Obj(), aDC(mine, atTarget), writer),
			stop: []string{writer.Name}, requeue: true},
		"deleted mid-run, writers stopped: given back, finalizer removed": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Deleting(t0.Add(time.Hour)).Obj(), aDC(mine, atTarget), suspended),
			dc: "size=3 config=" + compact(json.RawMessage(origConfig)) + " lock=-", removeFinalizer: true},
		"deleted after its datacenter": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Deleting(t0.Add(time.Hour)).Obj(), nil), removeFinalizer: true,
			conds: map[string]string{cbv1.ConditionDatacenterRestored: "True/NothingToRestore"}},
		"finished: the finalizer goes": {o: observed(aRun().Recorded(t0, 3, origConfig).Patched(5, 5).Condition(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady, t1).Condition(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded, t1).Condition(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded, t1).Condition(cbv1.ConditionDatacenterRestored, "True", cbv1.ReasonRestored, t1).Condition(cbv1.ConditionSucceeded, "True", cbv1.ReasonSucceeded, t1).Obj(), aDC()),
			removeFinalizer: true},
	}
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
