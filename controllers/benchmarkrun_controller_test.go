package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

const originalConfig = `{"cassandra-yaml":{"concurrent_writes":32,"num_tokens":16},"jvm-server-options":{"max_heap_size":"4G"}}`

// readyDatacenter creates an opted-in, settled datacenter of the given size.
func readyDatacenter(t *testing.T, ns, name string, size int32) *cassdcapi.CassandraDatacenter {
	t.Helper()
	dc := builders.MakeDatacenter(name, ns).Cluster("c1").Size(size).Config(originalConfig).AllowBenchmarks("true").Obj()
	pl.Create(t, dc)
	pl.Settle(t, dc)
	return dc
}

func TestFullRunScalesTunesMeasuresAndRestores(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation

	run := builders.MakeBenchmarkRun("scale-3-5", ns).Datacenter("dc1").Size(5).
		CassandraYaml(map[string]any{"concurrent_writes": 128, "concurrent_reads": 64}).
		JvmOptions(map[string]any{"max_heap_size": "8G"}).
		Writers(3).Duration(20 * time.Second).Obj()
	pl.Create(t, run)
	pl.PassPreflight(t, run)

	got := pl.WaitCondition(t, run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating)
	if got.Status.Datacenter == nil || *got.Status.Datacenter.OriginalSize != 3 {
		t.Fatalf("original size not recorded: %+v", got.Status.Datacenter)
	}
	pl.OperatorApplies(t, dc, gen)

	patched := pl.Datacenter(t, dc)
	if patched.Spec.Size != 5 {
		t.Errorf("size %d, want 5", patched.Spec.Size)
	}
	wantConfig := `{"cassandra-yaml":{"concurrent_writes":128,"concurrent_reads":64,"num_tokens":16},"jvm-server-options":{"max_heap_size":"8G"}}`
	if !datacenter.SameJSON(patched.Spec.Config, json.RawMessage(wantConfig)) {
		t.Errorf("config %s\nwant %s", patched.Spec.Config, wantConfig)
	}
	if patched.Annotations[cbv1.LockAnnotation] != ns+"/scale-3-5" {
		t.Errorf("lock annotation %q", patched.Annotations[cbv1.LockAnnotation])
	}

	setup := pl.WaitJob(t, ns, "scale-3-5-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{
		CassandraVersion: "5.0.4", Nodes: 5, SettingsVerified: []string{"concurrent_reads", "concurrent_writes"}})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	pl.WaitCondition(t, run, cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded)

	writers := pl.WaitJob(t, ns, "scale-3-5-writer")
	if *writers.Spec.Completions != 3 || *writers.Spec.Parallelism != 3 {
		t.Fatalf("writer Job completions %d parallelism %d", *writers.Spec.Completions, *writers.Spec.Parallelism)
	}
	pl.JobRunning(t, writers, 3)
	pl.Pods(t, writers, map[int32]play.PodResult{0: {Running: true}, 1: {Running: true}, 2: {Running: true}})
	play.Eventually(t, 10*time.Second, "progress while running", func() error {
		if r := pl.Run(t, run); r.Status.Progress == nil || r.Status.Phase != cbv1.PhaseRunning {
			return fmt.Errorf("phase %s progress %+v", r.Status.Phase, r.Status.Progress)
		}
		return nil
	})
	pl.Pods(t, writers, map[int32]play.PodResult{
		0: {Message: play.WriterSummary(t, 0, 3, 10000, "")},
		1: {Message: play.WriterSummary(t, 1, 3, 20000, "")},
		2: {Message: play.WriterSummary(t, 2, 3, 30000, "")},
	})
	pl.FinishJob(t, writers, []int32{0, 1, 2}, nil)

	done := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, cbv1.ReasonSucceeded)
	res := done.Status.Results
	if res == nil || res.Operations != 60000 || res.OpsPerSecond != 6000 || res.WritersReported != 3 {
		t.Fatalf("results %+v", res)
	}
	if res.Writes.Response.P50 < 1200 || res.Writes.Response.P50 > 1400 {
		t.Errorf("merged p50 %d, want about 1300", res.Writes.Response.P50)
	}
	if done.Status.Phase != cbv1.PhaseSucceeded || done.Status.CompletionTime == nil {
		t.Errorf("phase %s completion %v", done.Status.Phase, done.Status.CompletionTime)
	}
	if done.Status.Datacenter.CassandraVersion != "5.0.4" || len(done.Status.Datacenter.SettingsVerified) != 2 {
		t.Errorf("setup report not recorded: %+v", done.Status.Datacenter)
	}
	if c := findCond(done, cbv1.ConditionDatacenterRestored); c.Reason != cbv1.ReasonRestored || !strings.Contains(c.Message, "restored size 3") {
		t.Errorf("DatacenterRestored %s: %s", c.Reason, c.Message)
	}
	restored := pl.Datacenter(t, dc)
	if restored.Spec.Size != 3 || !datacenter.SameJSON(restored.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("not restored: size %d config %s", restored.Spec.Size, restored.Spec.Config)
	}
	if _, locked := restored.Annotations[cbv1.LockAnnotation]; locked {
		t.Error("lock not released")
	}
	// The run waits, its finalizer on, for cass-operator to roll out the restore; the finalizer
	// goes in a pass after that.
	if f := pl.Run(t, run).Finalizers; len(f) == 0 {
		t.Error("the finalizer went before cass-operator rolled out the restore")
	}
	pl.Settle(t, dc)
	play.Eventually(t, 10*time.Second, "finalizer removed", func() error {
		if f := pl.Run(t, run).Finalizers; len(f) != 0 {
			return fmt.Errorf("finalizers left: %v", f)
		}
		return nil
	})
	assertEvents(t, run, cbv1.ReasonDatacenterUpdating, cbv1.ReasonSetupSucceeded, cbv1.ReasonWritersSucceeded, cbv1.ReasonSucceeded)
}

func TestRunWaitsForItsDatacenterToAppear(t *testing.T) {
	ns := env.Namespace(t)
	startManager(t, managerConfig(t, ns))
	run := builders.MakeBenchmarkRun("early", ns).Datacenter("later").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, run)
	got := pl.WaitCondition(t, run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterNotFound)
	if got.Status.Phase != cbv1.PhasePending {
		t.Errorf("phase %s", got.Status.Phase)
	}
	readyDatacenter(t, ns, "later", 1)
	pl.WaitJob(t, ns, "early-setup")
}

func TestDatacenterWithoutOptInIsNeverTouched(t *testing.T) {
	ns := env.Namespace(t)
	dc := builders.MakeDatacenter("private", ns).Cluster("c1").Size(3).Config(originalConfig).Obj()
	pl.Create(t, dc)
	pl.Settle(t, dc)
	startManager(t, managerConfig(t, ns))
	run := builders.MakeBenchmarkRun("nosy", ns).Datacenter("private").Size(5).Writers(1).Duration(time.Second).Obj()
	pl.Create(t, run)
	got := pl.WaitCondition(t, run, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterNotOptedIn)
	if c := got.Status.Conditions[0]; !strings.Contains(c.Message, cbv1.AllowBenchmarksAnnotation) {
		t.Errorf("message does not say how to opt in: %q", c.Message)
	}
	time.Sleep(time.Second)
	after := pl.Datacenter(t, dc)
	if after.Spec.Size != 3 || after.Annotations[cbv1.LockAnnotation] != "" || after.Generation != dc.Generation {
		t.Errorf("datacenter touched: size %d annotations %v generation %d->%d", after.Spec.Size, after.Annotations, dc.Generation, after.Generation)
	}
}

func TestRunsOnOneDatacenterTakeTurns(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	first := builders.MakeBenchmarkRun("first", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, first)
	pl.WaitJob(t, ns, "first-setup")
	time.Sleep(1100 * time.Millisecond) // creation timestamps have one-second resolution
	second := builders.MakeBenchmarkRun("second", ns).Datacenter("dc1").Writers(1).Duration(time.Second).Obj()
	pl.Create(t, second)
	got := pl.WaitCondition(t, second, cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy)
	if got.Status.Phase != cbv1.PhaseQueued {
		t.Errorf("phase %s", got.Status.Phase)
	}

	completeRun(t, ns, "first", 1)
	pl.WaitCondition(t, first, cbv1.ConditionSucceeded, metav1.ConditionTrue, "")
	completeRun(t, ns, "second", 1)
	pl.WaitCondition(t, second, cbv1.ConditionSucceeded, metav1.ConditionTrue, "")
	if holder := pl.Datacenter(t, dc).Annotations[cbv1.LockAnnotation]; holder != "" {
		t.Errorf("lock still held by %s", holder)
	}
}

// completeRun plays a successful setup and writers for a run already past its datacenter.
func completeRun(t *testing.T, ns, name string, writers int32) {
	t.Helper()
	setup := pl.WaitJob(t, ns, name+"-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{CassandraVersion: "5.0.4", Nodes: 1})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	job := pl.WaitJob(t, ns, name+"-writer")
	results := map[int32]play.PodResult{}
	var all []int32
	for i := int32(0); i < writers; i++ {
		results[i] = play.PodResult{Message: play.WriterSummary(t, i, writers, 1000, "")}
		all = append(all, i)
	}
	pl.Pods(t, job, results)
	pl.FinishJob(t, job, all, nil)
}

// tunedRunAtItsWriters creates a run of writers that tunes a ready 3-node dc1, plays its
// settings check, cass-operator's roll and its setup, and returns it with its writer Job.
func tunedRunAtItsWriters(t *testing.T, name string, writers int32) (*cbv1.BenchmarkRun, *cassdcapi.CassandraDatacenter, *batchv1.Job) {
	t.Helper()
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun(name, ns).Datacenter("dc1").
		CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(writers).Duration(time.Second).Obj()
	pl.Create(t, run)
	pl.PassPreflight(t, run)
	pl.OperatorApplies(t, dc, gen)
	setup := pl.WaitJob(t, ns, name+"-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 3})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	return run, dc, pl.WaitJob(t, ns, name+"-writer")
}

func TestFailedWriterFailsTheRunAndKeepsTheOthersResults(t *testing.T) {
	run, dc, job := tunedRunAtItsWriters(t, "one-fails", 3)
	pl.Pods(t, job, map[int32]play.PodResult{
		0: {Message: play.WriterSummary(t, 0, 3, 5000, "")},
		1: {ExitCode: 137},
		2: {Message: play.WriterSummary(t, 2, 3, 7000, "")},
	})
	pl.FinishJob(t, job, []int32{0, 2}, []int32{1})
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonWriterFailed)
	c := got.Status.Conditions
	msg := ""
	for _, cond := range c {
		if cond.Type == cbv1.ConditionSucceeded {
			msg = cond.Message
		}
	}
	if !strings.Contains(msg, "writer 1") || !strings.Contains(msg, "137") {
		t.Errorf("message does not name the failed writer: %q", msg)
	}
	if got.Status.Results == nil || got.Status.Results.Operations != 12000 || got.Status.Results.WritersReported != 2 {
		t.Errorf("partial results not kept: %+v", got.Status.Results)
	}
	if d := pl.Datacenter(t, dc); !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("datacenter not given back: %s %v", d.Spec.Config, d.Annotations)
	}
}

// Writers that fail before their first send report only an error: no window, so no results.
// The manager once merged them into results without the window the API requires; every
// status write was then refused and the run stayed Running with its Job long failed.
func TestWritersFailedBeforeSendingFailTheRunNamingWhy(t *testing.T) {
	run, dc, job := tunedRunAtItsWriters(t, "none-sent", 2)
	const why = "observing datacenter dc2: no response received from cassandra within timeout period"
	pl.Pods(t, job, map[int32]play.PodResult{
		0: {ExitCode: 1, Message: play.FailedWriterSummary(t, 0, 2, why)},
		1: {ExitCode: 1, Message: play.FailedWriterSummary(t, 1, 2, "start barrier: saw 1 of 2 writers")},
	})
	pl.FinishJob(t, job, nil, []int32{0, 1})
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonWriterFailed)
	if c := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded); !strings.Contains(c.Message, why) {
		t.Errorf("Succeeded's message %q does not say why writer 0 failed", c.Message)
	}
	if got.Status.Results != nil {
		t.Errorf("results %+v from writers that measured nothing", got.Status.Results)
	}
	got = pl.WaitCondition(t, run, cbv1.ConditionDatacenterRestored, metav1.ConditionTrue, "")
	if d := pl.Datacenter(t, dc); !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("datacenter not given back: %s %v", d.Spec.Config, d.Annotations)
	}
	if got.Status.Phase != cbv1.PhaseFailed {
		t.Errorf("phase %s, want %s", got.Status.Phase, cbv1.PhaseFailed)
	}
}

func TestDeletingARunMidLoadRestoresTheDatacenter(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 3)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("deleted", ns).Datacenter("dc1").Size(4).Writers(2).Duration(time.Minute).Obj()
	pl.Create(t, run)
	pl.OperatorApplies(t, dc, gen)
	setup := pl.WaitJob(t, ns, "deleted-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 4})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	pl.WaitJob(t, ns, "deleted-writer")

	if err := env.Client.Delete(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	play.Eventually(t, 30*time.Second, "run gone", func() error {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(run), &cbv1.BenchmarkRun{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %w", err)
	})
	d := pl.Datacenter(t, dc)
	if d.Spec.Size != 3 || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("after deletion: size %d, lock %q", d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
	}
}

func TestRestartedManagerCreatesNothingTwice(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	cfg := managerConfig(t, ns)
	m := startManager(t, cfg)
	run := builders.MakeBenchmarkRun("restart", ns).Datacenter("dc1").Writers(2).Duration(time.Second).Obj()
	pl.Create(t, run)
	setup := pl.WaitJob(t, ns, "restart-setup")
	pl.Pods(t, setup, map[int32]play.PodResult{0: {Message: play.SetupReport(t, summary.SetupReport{Nodes: 1})}})
	pl.FinishJob(t, setup, []int32{0}, nil)
	job := pl.WaitJob(t, ns, "restart-writer")
	m.stop()

	startManager(t, cfg)
	time.Sleep(time.Second)
	pl.Pods(t, job, map[int32]play.PodResult{0: {Message: play.WriterSummary(t, 0, 2, 100, "")}, 1: {Message: play.WriterSummary(t, 1, 2, 100, "")}})
	pl.FinishJob(t, job, []int32{0, 1}, nil)
	pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionTrue, "")
	var jobs batchv1.JobList
	if err := env.Client.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 2 {
		t.Errorf("%d Jobs, want the setup and writer Jobs only", len(jobs.Items))
	}
}

// A typo must fail the run before the datacenter is touched: cass-operator would write the
// unknown key into cassandra.yaml and Cassandra would refuse to start.
func TestSettingTypoFailsBeforeTheDatacenterChanges(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	before := pl.Datacenter(t, dc)
	run := builders.MakeBenchmarkRun("typo", ns).Datacenter("dc1").Size(2).
		CassandraYaml(map[string]any{"concurent_writes": 64}).Writers(2).Duration(time.Second).Obj()
	pl.Create(t, run)
	preflight := pl.WaitJob(t, ns, "typo-preflight")
	if args := preflight.Spec.Template.Spec.Containers[0].Args; strings.Join(args, " ") != "setup --preflight" {
		t.Errorf("preflight args %v", args)
	}
	report := summary.SetupReport{Nodes: 1, Error: `setting "concurent_writes" is not a Cassandra setting (node 10.0.0.1)`}
	pl.Pods(t, preflight, map[int32]play.PodResult{0: {ExitCode: 1, Message: play.SetupReport(t, report)}})
	pl.FinishJob(t, preflight, nil, []int32{0})
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonSettingsInvalid)
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, "concurent_writes") || !strings.Contains(c.Message, "not changed") {
		t.Errorf("message does not name the setting: %q", c.Message)
	}
	after := pl.Datacenter(t, dc)
	if after.Generation != before.Generation || after.Spec.Size != 1 || after.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("datacenter touched: generation %d->%d size %d lock %q", before.Generation, after.Generation, after.Spec.Size, after.Annotations[cbv1.LockAnnotation])
	}
	for _, name := range []string{"typo-setup", "typo-writer"} {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
			t.Errorf("Job %s exists after a failed settings check: %v", name, err)
		}
	}
}

// A value cass-operator did not apply is caught on the nodes by setup, before any load.
func TestSettingThatDidNotApplyFailsBeforeLoad(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("unapplied", ns).Datacenter("dc1").
		CassandraYaml(map[string]any{"concurrent_writes": 64}).Writers(2).Duration(time.Second).Obj()
	pl.Create(t, run)
	pl.PassPreflight(t, run)
	pl.OperatorApplies(t, dc, gen)
	setup := pl.WaitJob(t, ns, "unapplied-setup")
	report := summary.SetupReport{Nodes: 1, Error: `node 10.0.0.1: concurrent_writes is 32, wanted 64`}
	pl.Pods(t, setup, map[int32]play.PodResult{0: {ExitCode: 1, Message: play.SetupReport(t, report)}})
	pl.FinishJob(t, setup, nil, []int32{0})
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonSetupFailed)
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, "concurrent_writes is 32, wanted 64") {
		t.Errorf("message does not name the setting: %q", c.Message)
	}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "unapplied-writer"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("writer Job exists after a failed setup: %v", err)
	}
	if d := pl.Datacenter(t, dc); !datacenter.SameJSON(d.Spec.Config, json.RawMessage(originalConfig)) {
		t.Errorf("config not restored: %s", d.Spec.Config)
	}
}

func TestReadinessDeadlineExpires(t *testing.T) {
	ns := env.Namespace(t)
	dc := readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))
	gen := pl.Datacenter(t, dc).Generation
	run := builders.MakeBenchmarkRun("stuck", ns).Datacenter("dc1").Size(2).Writers(1).Duration(time.Second).Obj()
	run.Spec.Deadlines.Prepare = &metav1.Duration{Duration: 3 * time.Second}
	pl.Create(t, run)
	play.Eventually(t, 10*time.Second, "patched", func() error {
		if pl.Datacenter(t, dc).Generation == gen {
			return errNotYet
		}
		return nil
	})
	if err := kube.SetDatacenterStatus(context.Background(), env.Client, dc, kube.MarkDatacenterUpdating(dc)); err != nil {
		t.Fatal(err)
	}
	got := pl.WaitCondition(t, run, cbv1.ConditionSucceeded, metav1.ConditionFalse, cbv1.ReasonPrepareDeadlineExceeded)
	if c := findCond(got, cbv1.ConditionSucceeded); !strings.Contains(c.Message, "Updating") {
		t.Errorf("message does not say what was pending: %q", c.Message)
	}
	if d := pl.Datacenter(t, dc); d.Spec.Size != 1 || d.Annotations[cbv1.LockAnnotation] != "" {
		t.Errorf("not given back: size %d lock %q", d.Spec.Size, d.Annotations[cbv1.LockAnnotation])
	}
}

func findCond(run *cbv1.BenchmarkRun, t string) metav1.Condition {
	for _, c := range run.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return metav1.Condition{}
}

// assertEvents checks that the run's events include each reason.
func assertEvents(t *testing.T, run *cbv1.BenchmarkRun, reasons ...string) {
	t.Helper()
	play.Eventually(t, 10*time.Second, "events", func() error {
		var list eventsv1.EventList
		if err := env.Client.List(context.Background(), &list, client.InNamespace(run.Namespace)); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, e := range list.Items {
			if e.Regarding.Name == run.Name {
				seen[e.Reason] = true
			}
		}
		for _, r := range reasons {
			if !seen[r] {
				return fmt.Errorf("no %s event; saw %v", r, seen)
			}
		}
		return nil
	})
}
