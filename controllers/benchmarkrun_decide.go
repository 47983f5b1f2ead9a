package controllers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/reportstore"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
)

// The lifecycle of a run as one pure decision: observe gathers what a pass read, decide
// chooses the one next step from it, the reconciler performs the step. Nothing is decided
// from a flag one pass set for the next: restoring compares the datacenter with the
// originals recorded in status and with the run's target, so a crash between any two writes
// leaves the next pass enough to finish the job.

// observation is everything one pass read.
type observation struct {
	run *cbv1.BenchmarkRun
	now time.Time
	// image is the manager's own image: the default, and always allowed.
	image string
	// allowedImages are further images runs may name (a trailing * matches a prefix).
	allowedImages []string
	// notWatched is set when the run's datacenter is in a namespace the manager does not watch.
	notWatched bool
	// dc is the run's datacenter, nil when it does not exist.
	dc *cassdcapi.CassandraDatacenter
	// holderAlive tells whether the run or sweep named in the datacenter's lock, if another,
	// still needs it.
	holderAlive bool
	// lender is the sweep that controls the run when that sweep holds the run's datacenter
	// (restore atEnd) and has recorded its originals: the run uses the datacenter under the
	// sweep's lock and leaves restoring to the sweep.
	lender *cbv1.BenchmarkSweep
	// queueHead is the waiting run whose turn it is; position is this run's place in the queue.
	queueHead     types.NamespacedName
	queuePosition int
	// jobs are the run's own Jobs (controlled by it) by component; pods are the pods those
	// Jobs control, by component.
	jobs map[string]*batchv1.Job
	pods map[string][]corev1.Pod
	// foreign are Jobs with one of the run's Job names that the run does not control: left
	// by an earlier run of the same name.
	foreign map[string]*batchv1.Job
	// reports are the writer reports stored in the run's ConfigMaps, with their summaries.
	reports []cbv1.WriterReport
	// progressInterval between progress updates while writers run.
	progressInterval time.Duration
	// podStartGrace is how long a pod of the run's Jobs may fail to start before the run fails.
	podStartGrace time.Duration
	// dcPendingPods are the datacenter's pods that are not ready, read only while a restore
	// waits for cass-operator to finish resizing, or while the run waits for the datacenter
	// it patched to become ready.
	dcPendingPods []string
}

// dcChange is a patch of the datacenter: only the fields set change.
type dcChange struct {
	// what is the change in words, for errors and refusals.
	what string
	size *int32
	// config replaces spec.config when setConfig is set (nil removes it).
	config    json.RawMessage
	setConfig bool
	// lock sets ("namespace/name") or removes ("") the lock annotation; nil leaves it.
	lock *string
	// stage is the condition a refusal of this change fails.
	stage string
	// restore marks the change that puts the datacenter back.
	restore bool
}

// step is what the reconciler does next, and the status that results when it succeeds.
type step struct {
	status          cbv1.BenchmarkRunStatus
	addFinalizer    bool
	removeFinalizer bool
	// stop are the run's own Jobs to suspend before the datacenter is given back.
	stop []*batchv1.Job
	// deleteForeign is a Job with the name the run needs, left by an earlier run.
	deleteForeign *batchv1.Job
	dc            *dcChange
	create        *batchv1.Job
	// reports are ConfigMaps of writer reports to store before anything else is done.
	reports []*corev1.ConfigMap
	// createStage is the condition a refusal of create fails.
	createStage  string
	requeueAfter time.Duration
}

// decide chooses the next step. It is pure: the observation is not changed.
func decide(o observation) step {
	d := &decider{o: o, run: o.run.DeepCopy()}
	d.decide()
	d.s.status = d.run.Status
	return d.s
}

type decider struct {
	o   observation
	run *cbv1.BenchmarkRun
	s   step
}

func (d *decider) set(t string, status metav1.ConditionStatus, reason, msg string) {
	conditions.SetAt(&d.run.Status.Conditions, d.run.Generation, d.o.now, t, status, reason, msg)
}

func (d *decider) fail(t, reason, msg string) { d.set(t, metav1.ConditionFalse, reason, msg) }

func (d *decider) requeue(after time.Duration) {
	after = max(after, 0) + time.Second
	if d.s.requeueAfter == 0 || after < d.s.requeueAfter {
		d.s.requeueAfter = after
	}
}

func (d *decider) me() types.NamespacedName {
	return types.NamespacedName{Namespace: d.run.Namespace, Name: d.run.Name}
}

func (d *decider) decide() {
	run := d.run
	hasFinalizer := controllerutil.ContainsFinalizer(run, cbv1.Finalizer)
	if !run.DeletionTimestamp.IsZero() {
		if hasFinalizer && d.giveBack(run.DeletionTimestamp.Time) {
			d.s.removeFinalizer = true
		}
		return
	}
	if finished(run) {
		// The finalizer goes in the pass after the final status is stored.
		d.s.removeFinalizer = hasFinalizer
		return
	}
	if o := pendingOutcome(run); o != nil {
		if !d.giveBack(o.since) {
			return
		}
		if run.Status.CompletionTime == nil {
			now := metav1.NewTime(d.o.now)
			run.Status.CompletionTime = &now
		}
		status, reason := metav1.ConditionTrue, cbv1.ReasonSucceeded
		if !o.succeeded {
			status, reason = metav1.ConditionFalse, o.reason
		}
		d.set(cbv1.ConditionSucceeded, status, reason, o.message)
		// The one place a run finishes: no stage may go on saying it is under way.
		conditions.Settle(&run.Status.Conditions, run.Generation, d.o.now, "run", runStages)
		run.Status.Progress = nil
		return
	}
	// The finalizer goes on before the run touches the datacenter, so that deleting the run
	// can always put the datacenter back; the reconciler adds it before any other write.
	d.s.addFinalizer = !hasFinalizer
	d.advance()
}

// advance takes the run one stage further: find, lock, record, check, patch, wait, set up,
// load.
func (d *decider) advance() {
	run, o := d.run, d.o
	key := datacenter.Key(run)
	if o.notWatched {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, fmt.Sprintf(
			"CassandraDatacenter %s is in namespace %s, which this manager does not watch (--watch-namespaces); "+
				"run it from a watched namespace or add the namespace to the manager's", key, key.Namespace))
		return
	}
	dc := o.dc
	if dc == nil {
		d.waitToFind(cbv1.ReasonDatacenterNotFound, fmt.Sprintf("CassandraDatacenter %s not found; waiting for it to be created", key))
		return
	}
	holder, locked := datacenter.LockHolder(dc)
	mine := locked && holder == datacenter.RunHolder(d.me())
	lent := lentBy(o.lender, dc)
	t, reason, msg := resolveTarget(run, dc, o.image, o.allowedImages)
	if reason != "" {
		if !mine {
			msg += "; the datacenter was not changed"
		}
		d.fail(cbv1.ConditionDatacenterReady, reason, msg)
		return
	}
	run.Status.Resolved = &cbv1.ResolvedSettings{
		Image: t.Image, Service: t.Host, Port: t.Port, CredentialsSecret: t.CredentialsSecret, Namespace: run.Namespace,
	}
	if !mine && !lent {
		d.take(dc, holder, locked)
		return
	}
	st := run.Status.Datacenter
	if run.Status.StartTime == nil || st == nil || st.OriginalSize == nil {
		if lent && !d.admit(dc) {
			return
		}
		d.record(dc)
		return
	}
	if !d.prepare(dc, t) {
		return
	}
	t.Nodes = st.Size
	if !d.setUp(t) {
		return
	}
	d.load(t)
}

// take locks the datacenter if it is the run's turn and the datacenter can take the run.
func (d *decider) take(dc *cassdcapi.CassandraDatacenter, holder datacenter.Holder, locked bool) {
	run := d.run
	if run.Status.StartTime != nil {
		// The run held the datacenter and someone removed its lock: what the run measures
		// from here is no longer its own.
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonLockLost, fmt.Sprintf(
			"the lock annotation %s on CassandraDatacenter %s was removed while the run held it", cbv1.LockAnnotation, keyOf(dc)))
		return
	}
	if !d.admit(dc) {
		return
	}
	if locked && d.o.holderAlive {
		d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy,
			fmt.Sprintf("CassandraDatacenter %s is in use by %s; this run starts when it is done", keyOf(dc), holder))
		return
	}
	if d.o.queueHead != d.me() {
		d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterBusy,
			fmt.Sprintf("CassandraDatacenter %s is next promised to BenchmarkRun %s; this run is number %d in the queue",
				keyOf(dc), d.o.queueHead, d.o.queuePosition))
		return
	}
	d.s.dc = &dcChange{what: "locking", lock: ptr.To(datacenter.LockValue(datacenter.RunHolder(d.me()))), stage: cbv1.ConditionDatacenterReady}
	d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
		fmt.Sprintf("locking CassandraDatacenter %s", keyOf(dc)))
}

// admit tells whether the datacenter takes this run: opted in for its namespace, nothing
// only the datacenter's namespace may set, suitable for the run. A refusal fails the run or
// waits, with why.
func (d *decider) admit(dc *cassdcapi.CassandraDatacenter) bool {
	run := d.run
	if ok, reason, msg := datacenter.Allows(dc, run.Namespace); !ok {
		d.waitToFind(reason, msg)
		return false
	}
	if msg := datacenter.CrossNamespaceDenied(run, dc); msg != "" {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonSettingNotAllowed, msg+"; the datacenter was not changed")
		return false
	}
	if reason, msg := datacenter.Unsuitable(run, dc); reason != "" {
		d.fail(cbv1.ConditionDatacenterReady, reason, msg+"; the datacenter was not changed")
		return false
	}
	return true
}

// lentBy tells whether a run's sweep holds the datacenter for it: the lock is the sweep's and
// the sweep has recorded the originals the run's target is merged into.
func lentBy(sw *cbv1.BenchmarkSweep, dc *cassdcapi.CassandraDatacenter) bool {
	if sw == nil || sw.Status.Datacenter == nil || sw.Status.Datacenter.OriginalSize == nil {
		return false
	}
	holder, locked := datacenter.LockHolder(dc)
	return locked && holder == datacenter.SweepHolder(types.NamespacedName{Namespace: sw.Namespace, Name: sw.Name})
}

// record stores the datacenter's size and config before anything changes them: the next
// step changes the datacenter only once this status is stored. A run on a datacenter its
// sweep holds records the sweep's originals instead: its target is the original with its own
// tuning merged in, whatever an earlier point left, so that a point differs from the previous
// one only where their specs differ.
func (d *decider) record(dc *cassdcapi.CassandraDatacenter) {
	run := d.run
	if run.Status.StartTime == nil {
		now := metav1.NewTime(d.o.now)
		run.Status.StartTime = &now
	}
	size, config, hadConfig := dc.Spec.Size, json.RawMessage(dc.Spec.Config), hasConfig(dc.Spec.Config)
	what := "locked CassandraDatacenter %s and recorded its size %d and config"
	if lentBy(d.o.lender, dc) {
		orig := d.o.lender.Status.Datacenter
		size, hadConfig, config = *orig.OriginalSize, orig.HadConfig, nil
		if orig.OriginalConfig != nil {
			config = orig.OriginalConfig.Raw
		}
		what = "CassandraDatacenter %s is held by the run's sweep (restore atEnd); recorded the sweep's original size %d and config"
	}
	st := &cbv1.DatacenterStatus{Name: dc.Name, Namespace: dc.Namespace, OriginalSize: &size, Size: size}
	if hadConfig {
		st.HadConfig = true
		st.OriginalConfig = &runtime.RawExtension{Raw: append([]byte(nil), config...)}
	}
	run.Status.Datacenter = st
	d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
		fmt.Sprintf(what, keyOf(dc), size))
}

// prepare checks the settings, patches the datacenter and waits until cass-operator applied
// the patch. Readiness gates this stage only: once the datacenter was ready, a change is
// someone else's (drift), not something to wait for.
func (d *decider) prepare(dc *cassdcapi.CassandraDatacenter, t jobs.Target) bool {
	run := d.run
	st := run.Status.Datacenter
	wantSize, wantConfig, err := target(run)
	if err != nil {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, err.Error())
		return false
	}
	if st.PatchedGeneration == 0 {
		if invalid, msg := datacenter.Invalid(dc); invalid {
			d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterInvalid,
				"cass-operator marked CassandraDatacenter "+keyOf(dc).String()+" invalid: "+msg)
			return false
		}
		atTarget := dc.Spec.Size == wantSize && datacenter.SameJSON(dc.Spec.Config, wantConfig)
		// A datacenter still applying an earlier change (the previous run's restore rolling
		// through its nodes, say) is waited for before its settings are checked or changed:
		// the check would meet restarting nodes, and the run's change would pile onto the
		// other. At the target, the change is this run's own and is waited for below.
		if !atTarget {
			if ready, why := datacenter.Ready(dc, dc.Generation); !ready {
				if d.prepareExpired("cass-operator did not finish an earlier change of the datacenter: " + why) {
					return false
				}
				d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
					"waiting for cass-operator to finish an earlier change before the run's settings are checked and applied: "+why)
				d.requeue(prepareDeadline(run).Sub(d.o.now))
				return false
			}
		}
		if !atTarget && !d.preflight(t) {
			return false
		}
		if atTarget {
			// Whoever patched (this pass's predecessor, perhaps a manager that crashed before
			// writing status), the datacenter is at the run's target now.
			st.Size = wantSize
			st.PatchedGeneration = dc.Generation
			st.Changed = dc.Spec.Size != *st.OriginalSize || !datacenter.SameJSON(dc.Spec.Config, originalConfig(st))
			d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
				describeChange(st, wantSize, wantSize != *st.OriginalSize, st.Changed))
			return false
		}
		sizeChanges := dc.Spec.Size != wantSize
		if sizeChanges && datacenter.Resizing(dc) {
			if d.prepareExpired("cass-operator kept resizing the datacenter, so its size could not change") {
				return false
			}
			d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
				"cass-operator is resizing the datacenter; its size can change once that is done")
			d.requeue(prepareDeadline(run).Sub(d.o.now))
			return false
		}
		d.s.dc = &dcChange{what: "sizing and tuning", size: ptr.To(wantSize), config: wantConfig, setConfig: true,
			stage: cbv1.ConditionDatacenterReady}
		d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
			fmt.Sprintf("patching CassandraDatacenter %s to size %d with the run's config", keyOf(dc), wantSize))
		return false
	}
	if drift := drifted(dc, st, wantSize, wantConfig, meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionDatacenterReady)); drift != "" {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterDrifted, fmt.Sprintf(
			"CassandraDatacenter %s was changed by someone else while the run held it: %s; what the run measures would not be what it asked for",
			keyOf(dc), drift))
		return false
	}
	if meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionDatacenterReady) {
		return true
	}
	if invalid, msg := datacenter.Invalid(dc); invalid {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterInvalid,
			"cass-operator marked CassandraDatacenter "+keyOf(dc).String()+" invalid: "+msg)
		return false
	}
	if ready, why := datacenter.Ready(dc, st.PatchedGeneration); !ready {
		if len(d.o.dcPendingPods) > 0 {
			why += "; pods not ready: " + strings.Join(d.o.dcPendingPods, ", ")
		}
		if d.prepareExpired("the datacenter did not become ready: " + why) {
			return false
		}
		d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating, "waiting for cass-operator: "+why)
		d.requeue(prepareDeadline(run).Sub(d.o.now))
		return false
	}
	d.set(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady,
		fmt.Sprintf("CassandraDatacenter %s is ready with %d nodes", keyOf(dc), st.Size))
	return true
}

// drifted names what someone else changed on the datacenter since the run saw it at its
// target; empty when nothing. A new generation counts only once the datacenter was ready:
// before that the run is still waiting for its own change.
func drifted(dc *cassdcapi.CassandraDatacenter, st *cbv1.DatacenterStatus, wantSize int32, wantConfig json.RawMessage, wasReady bool) string {
	var parts []string
	if dc.Spec.Size != wantSize {
		parts = append(parts, fmt.Sprintf("spec.size is %d, the run set %d", dc.Spec.Size, wantSize))
	}
	if !datacenter.SameJSON(dc.Spec.Config, wantConfig) {
		parts = append(parts, "spec.config is not what the run set")
	}
	if len(parts) == 0 && wasReady && dc.Generation != st.PatchedGeneration {
		parts = append(parts, fmt.Sprintf("its spec changed (generation %d, the run's was %d)", dc.Generation, st.PatchedGeneration))
	}
	return strings.Join(parts, "; ")
}

func describeChange(st *cbv1.DatacenterStatus, size int32, sizeChanged, changed bool) string {
	if !changed {
		return "the datacenter already matches the run; waiting for it to be ready"
	}
	var parts []string
	if sizeChanged {
		parts = append(parts, fmt.Sprintf("size %d -> %d", *st.OriginalSize, size))
	}
	parts = append(parts, "config merged")
	return "patched the datacenter (" + strings.Join(parts, ", ") + "); waiting for cass-operator to apply it"
}

// preflight checks, before the datacenter is changed, that every requested cassandra-yaml
// setting exists: cass-operator writes unknown keys into cassandra.yaml unchecked, and
// Cassandra then refuses to start, so a typo would otherwise stall a rolling restart until
// the prepare deadline instead of failing at once with the setting named.
func (d *decider) preflight(t jobs.Target) bool {
	run := d.run
	if settings, err := datacenter.CassandraYaml(run.Spec.Datacenter); err != nil || len(settings) == 0 {
		return true
	}
	job, ok := d.ensureJob(jobs.ComponentPreflight, cbv1.ConditionDatacenterReady, func() (*batchv1.Job, error) {
		return jobs.Preflight(run, t, int64(prepareTimeout(run)/time.Second))
	})
	if !ok {
		return false
	}
	if done, _ := jobs.Finished(job); !done {
		if d.prepareExpired("the settings check did not finish") {
			return false
		}
		note, failed := d.notStarting(job, jobs.ComponentPreflight, cbv1.ConditionDatacenterReady, "the datacenter was not changed")
		if failed {
			return false
		}
		d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonCheckingSettings,
			fmt.Sprintf("Job %s is checking that every cassandra-yaml setting exists before the datacenter is changed%s", job.Name, note))
		d.requeue(prepareDeadline(run).Sub(d.o.now))
		return false
	}
	report, failure := setupReport(job, d.o.pods[jobs.ComponentPreflight], jobs.ComponentPreflight)
	if d.awaitReport(job, report == nil && failure != "", cbv1.ConditionDatacenterReady, cbv1.ReasonCheckingSettings) {
		return false
	}
	if failure != "" {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonSettingsInvalid, failure+"; the datacenter was not changed")
		return false
	}
	return true
}

// ensureJob returns the run's own Job of a component, or decides to create it (after deleting
// a Job of the same name an earlier run left) and returns false.
func (d *decider) ensureJob(component, stage string, build func() (*batchv1.Job, error)) (*batchv1.Job, bool) {
	if job := d.o.jobs[component]; job != nil {
		return job, true
	}
	want, err := build()
	if err != nil {
		d.fail(stage, cbv1.ReasonInvalidSpec, err.Error())
		return nil, false
	}
	if old := d.o.foreign[want.Name]; old != nil {
		if old.DeletionTimestamp.IsZero() {
			d.s.deleteForeign = old
		}
		d.set(stage, metav1.ConditionFalse, reasonForStage(stage), fmt.Sprintf(
			"Job %s belongs to an earlier BenchmarkRun of the same name; deleting it (and stopping its pods) before this run creates its own", old.Name))
		return nil, false
	}
	d.s.create, d.s.createStage = want, stage
	d.set(stage, metav1.ConditionFalse, reasonForStage(stage), "creating Job "+want.Name)
	return nil, false
}

// notStarting looks at the pods of an unfinished Job that do not start. It fails the stage
// when one has not started within the grace, or never will (kept says what the failure
// leaves); otherwise it returns what to add to the stage's message, which names the first
// such pod and why, and looks again when its grace ends. An unschedulable pod is only named:
// a cluster autoscaler may add a node for it, and the deadlines bound the wait.
func (d *decider) notStarting(job *batchv1.Job, component, stage, kept string) (note string, failed bool) {
	pods := jobs.NotStartingPods(d.o.pods[component])
	if len(pods) == 0 {
		return "", false
	}
	for _, p := range pods {
		if p.Unschedulable {
			continue
		}
		until := p.Since.Add(d.o.podStartGrace)
		if !p.Retried {
			until = p.Since
		}
		if d.o.now.Before(until) {
			d.requeue(until.Sub(d.o.now))
			continue
		}
		within := fmt.Sprintf("did not start within the manager's --pod-start-grace (%s)", d.o.podStartGrace)
		if !p.Retried {
			within = "cannot start"
		}
		d.fail(stage, cbv1.ReasonPodsNotStarting, fmt.Sprintf(
			"pod %s of Job %s %s: %s: %s; pods of the Job not starting: %d; %s. Correct what the kubelet names "+
				"(the image, a Secret or ConfigMap the pods read, an image pull secret) and create the run again",
			p.Pod, job.Name, within, p.Reason, p.Message, len(pods), kept))
		return "", true
	}
	p := pods[0]
	return fmt.Sprintf("; %d pod(s) not starting, %s: %s: %s", len(pods), p.Pod, p.Reason, p.Message), false
}

func reasonForStage(stage string) string {
	switch stage {
	case cbv1.ConditionSchemaReady:
		return cbv1.ReasonSetupRunning
	case cbv1.ConditionWritersComplete:
		return cbv1.ReasonWritersRunning
	}
	return cbv1.ReasonCheckingSettings
}

// setUp runs the setup Job once and reads its report.
func (d *decider) setUp(t jobs.Target) bool {
	run := d.run
	if meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionSchemaReady) {
		return true
	}
	job, ok := d.ensureJob(jobs.ComponentSetup, cbv1.ConditionSchemaReady, func() (*batchv1.Job, error) {
		return jobs.Setup(run, t, int64(max(prepareDeadline(run).Sub(d.o.now), time.Minute)/time.Second))
	})
	if !ok {
		return false
	}
	if done, _ := jobs.Finished(job); !done {
		if d.prepareExpired("the setup Job did not finish") {
			return false
		}
		note, failed := d.notStarting(job, jobs.ComponentSetup, cbv1.ConditionSchemaReady, "no schema was created")
		if failed {
			return false
		}
		d.set(cbv1.ConditionSchemaReady, metav1.ConditionFalse, cbv1.ReasonSetupRunning,
			fmt.Sprintf("Job %s is verifying settings and creating the schema%s", job.Name, note))
		d.requeue(prepareDeadline(run).Sub(d.o.now))
		return false
	}
	report, failure := setupReport(job, d.o.pods[jobs.ComponentSetup], jobs.ComponentSetup)
	if d.awaitReport(job, report == nil && failure != "", cbv1.ConditionSchemaReady, cbv1.ReasonSetupRunning) {
		return false
	}
	if report != nil {
		st := run.Status.Datacenter
		st.CassandraVersion, st.Nodes, st.SettingsVerified = report.CassandraVersion, report.Nodes, report.SettingsVerified
		st.SettingsUnverified = report.Unverified[:min(len(report.Unverified), 64)]
	}
	if failure != "" {
		d.fail(cbv1.ConditionSchemaReady, cbv1.ReasonSetupFailed, "setup failed: "+failure)
		return false
	}
	d.set(cbv1.ConditionSchemaReady, metav1.ConditionTrue, cbv1.ReasonSetupSucceeded,
		fmt.Sprintf("Cassandra %s on %d nodes; %d settings verified on every node; schema created",
			orUnknown(report.CassandraVersion), report.Nodes, len(report.SettingsVerified)))
	return true
}

// reportGrace is how long after its Job finished a pod's report may take to be seen: the
// Job's status and its pods come through different watches, in no set order.
const reportGrace = 30 * time.Second

// awaitReport tells whether to wait for the pods of a Job that finished successfully when
// reports are missing, rather than fail the run for want of them.
func (d *decider) awaitReport(job *batchv1.Job, missing bool, stage, reason string) bool {
	if _, ok := jobs.Finished(job); !ok || !missing {
		return false
	}
	until := jobs.FinishedAt(job).Add(reportGrace)
	if !d.o.now.Before(until) {
		return false
	}
	d.set(stage, metav1.ConditionFalse, reason, fmt.Sprintf("Job %s finished; reading what its pods reported", job.Name))
	d.requeue(until.Sub(d.o.now))
	return true
}

// setupReport reads what a finished setup or preflight Job reported. failure is empty when
// it succeeded, else a sentence saying why it did not.
func setupReport(job *batchv1.Job, pods []corev1.Pod, component string) (*summary.SetupReport, string) {
	_, ok := jobs.Finished(job)
	term, found := jobs.TerminatedPods(pods, component)[0]
	var report *summary.SetupReport
	if found && term.Message != "" {
		var err error
		report, err = summary.DecodeSetupReport([]byte(term.Message))
		if err != nil {
			report = &summary.SetupReport{Error: fmt.Sprintf("%v; the pod said: %.300s", err, term.Message)}
		}
	}
	switch {
	case report != nil && report.Error != "":
		return report, report.Error
	case ok && report != nil:
		return report, ""
	case found:
		return report, fmt.Sprintf("pod %s exited with code %d (%s) without a report", term.Pod, term.ExitCode, term.Reason)
	default:
		return report, "Job " + job.Name + " failed: " + jobs.FailureMessage(job)
	}
}

// load creates the writer Job, stores every writer's report the first time it is read,
// merges the stored reports, and decides the outcome when the Job is finished.
func (d *decider) load(t jobs.Target) {
	run := d.run
	job, ok := d.ensureJob(jobs.ComponentWriter, cbv1.ConditionWritersComplete, func() (*batchv1.Job, error) {
		return jobs.Writers(run, t, int64(runTimeout(run)/time.Second))
	})
	if !ok {
		return
	}
	n := run.Spec.Writers.Replicas
	pods := d.o.pods[jobs.ComponentWriter]
	full, fresh := gatherReports(run.Status.WriterReports, d.o.reports, jobs.TerminatedPods(pods, jobs.ComponentWriter), pods, n)
	d.s.reports = reportstore.ConfigMaps(run, fresh)
	run.Status.WriterReports = compactReports(run.Name, full)
	summaries, problems := readSummaries(full)
	if merged := results.Merge(summaries); merged != nil {
		run.Status.Results = merged
	}
	active, succeeded, failed := jobs.Counts(job)
	run.Status.Writers = &cbv1.WritersStatus{JobName: job.Name, Replicas: n, Active: active, Succeeded: succeeded, Failed: failed}

	done, _ := jobs.Finished(job)
	if !done {
		deadline := job.CreationTimestamp.Add(runTimeout(run) + time.Minute)
		if !d.o.now.Before(deadline) {
			d.fail(cbv1.ConditionWritersComplete, cbv1.ReasonRunDeadlineExpired, fmt.Sprintf(
				"the writers did not finish within deadlines.run (%s); results of the writers that reported are kept", runTimeout(run)))
			return
		}
		note, failed := d.notStarting(job, jobs.ComponentWriter, cbv1.ConditionWritersComplete,
			fmt.Sprintf("results of the %d writers that reported are kept", len(summaries)))
		if failed {
			return
		}
		msg := fmt.Sprintf("%d of %d writers running, %d done", active, n, succeeded)
		if len(problems) > 0 {
			// A failed writer fails the run, but the others run on to the end of their window
			// so their results are kept.
			msg = fmt.Sprintf("%d of %d writers running; failed so far: %s", active, n, strings.Join(problems, "; "))
		}
		d.set(cbv1.ConditionWritersComplete, metav1.ConditionFalse, cbv1.ReasonWritersRunning, msg+note)
		run.Status.Progress = progress(run, lastStart(pods), d.o.now, d.o.progressInterval)
		d.requeue(min(d.o.progressInterval, deadline.Sub(d.o.now)))
		return
	}
	missing := missingWriters(summaries, n)
	if d.awaitReport(job, len(missing) > 0, cbv1.ConditionWritersComplete, cbv1.ReasonWritersRunning) {
		return
	}
	run.Status.Progress = nil
	d.targetRate()
	if len(problems) == 0 && len(missing) == 0 {
		d.set(cbv1.ConditionWritersComplete, metav1.ConditionTrue, cbv1.ReasonWritersSucceeded,
			fmt.Sprintf("all %d writers finished and reported", n))
		return
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("no result from writer(s) %s", joinInts(missing)))
	}
	reason := cbv1.ReasonWriterFailed
	if msg := jobs.FailureMessage(job); msg != "" {
		problems = append(problems, "Job "+job.Name+": "+msg)
		if strings.HasPrefix(msg, batchv1.JobReasonDeadlineExceeded) {
			reason = cbv1.ReasonRunDeadlineExpired
		}
	}
	d.fail(cbv1.ConditionWritersComplete, reason,
		fmt.Sprintf("%s; results of the %d writers that reported are kept", strings.Join(problems, "; "), n-int32(len(missing))))
}

// targetRate reports whether an open loop achieved its target: a run that did not is still
// a result (what the cluster did at that load), but its latency is not latency at that rate.
func (d *decider) targetRate() {
	res := d.run.Status.Results
	if res == nil || res.Schedule == nil {
		return
	}
	if msg, short := results.TargetShortfall(res); short {
		d.set(cbv1.ConditionTargetRateReached, metav1.ConditionFalse, cbv1.ReasonTargetRateNotReached, msg)
		return
	}
	d.set(cbv1.ConditionTargetRateReached, metav1.ConditionTrue, cbv1.ReasonTargetRateReached,
		fmt.Sprintf("achieved %d ops/s of the %d ops/s targeted", res.OpsPerSecond, res.Schedule.TargetOpsPerSecond))
}

// storeReports adds to the stored reports every writer that terminated and is not stored
// yet. A stored report is never replaced: it is what that writer measured.
func storeReports(stored []cbv1.WriterReport, terminated map[int32]jobs.Terminated, pods []corev1.Pod, n int32) []cbv1.WriterReport {
	have := map[int32]bool{}
	for _, r := range stored {
		have[r.Index] = true
	}
	uids := map[string]types.UID{}
	for _, p := range pods {
		uids[p.Name] = p.UID
	}
	out := append([]cbv1.WriterReport(nil), stored...)
	for i := int32(0); i < n; i++ {
		t, ok := terminated[i]
		if !ok || have[i] {
			continue
		}
		out = append(out, cbv1.WriterReport{Index: i, Pod: t.Pod, PodUID: string(uids[t.Pod]), ExitCode: t.ExitCode,
			Reason: t.Reason, Summary: t.Message})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// readSummaries decodes the stored writer reports. A failed writer is named with its reason;
// its summary, if it wrote one, is still merged.
func readSummaries(reports []cbv1.WriterReport) ([]*summary.Summary, []string) {
	var out []*summary.Summary
	var problems []string
	for _, r := range reports {
		var s *summary.Summary
		if r.Summary != "" {
			var err error
			if s, err = summary.Decode([]byte(r.Summary)); err != nil {
				problems = append(problems, fmt.Sprintf("writer %d (pod %s): unreadable result: %v", r.Index, r.Pod, err))
			}
		}
		if s != nil {
			s.Index = r.Index
			out = append(out, s)
		}
		switch {
		case s != nil && s.Error != "":
			problems = append(problems, fmt.Sprintf("writer %d (pod %s) failed: %s", r.Index, r.Pod, s.Error))
		case r.ExitCode != 0 && (s == nil || s.Error == ""):
			problems = append(problems, fmt.Sprintf("writer %d (pod %s) exited with code %d (%s)", r.Index, r.Pod, r.ExitCode, r.Reason))
		}
	}
	return out, problems
}

// giveBack stops the run's own Jobs, then restores the datacenter from what status recorded
// and releases the lock. It returns true once the datacenter is given back (or cannot be
// given back, with the reason in DatacenterRestored), false while it must wait.
func (d *decider) giveBack(since time.Time) bool {
	run := d.run
	deadline := since.Add(prepareTimeout(run))
	expired := !d.o.now.Before(deadline)
	if c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterRestored); c != nil && restoreFinal(c) {
		return true
	}
	// Writers of a failed run must not go on loading the datacenter once it is released:
	// the next run would measure under their load.
	var running []string
	for _, component := range []string{jobs.ComponentPreflight, jobs.ComponentSetup, jobs.ComponentWriter} {
		job := d.o.jobs[component]
		if job == nil {
			continue
		}
		if done, _ := jobs.Finished(job); done {
			continue
		}
		if !ptr.Deref(job.Spec.Suspend, false) {
			d.s.stop = append(d.s.stop, job)
		}
		// Suspended pods get their grace period: they may load the datacenter until gone.
		if !ptr.Deref(job.Spec.Suspend, false) || job.Status.Active > 0 || ptr.Deref(job.Status.Terminating, 0) > 0 {
			running = append(running, job.Name)
		}
	}
	if len(running) > 0 && !expired {
		d.set(cbv1.ConditionDatacenterRestored, metav1.ConditionFalse, cbv1.ReasonStoppingJobs, fmt.Sprintf(
			"stopping Job(s) %s before the datacenter is given back", strings.Join(running, ", ")))
		d.requeue(deadline.Sub(d.o.now))
		return false
	}
	dc := d.o.dc
	if d.o.notWatched || dc == nil {
		d.set(cbv1.ConditionDatacenterRestored, metav1.ConditionTrue, cbv1.ReasonNothingToRestore, "the datacenter no longer exists or was never reachable")
		return true
	}
	plan := planRestore(run, dc, d.o.lender, d.o.dcPendingPods, expired)
	if plan.change != nil {
		d.s.dc = plan.change
	}
	d.set(cbv1.ConditionDatacenterRestored, plan.status, plan.reason, plan.message)
	if !plan.done {
		d.requeue(deadline.Sub(d.o.now))
	}
	return plan.done
}

// restoreFinal tells whether a DatacenterRestored condition ends giving back: restored, or
// given up on with the reason named. A refused restore still has the lock to release.
func restoreFinal(c *metav1.Condition) bool {
	switch c.Reason {
	case cbv1.ReasonRestoreStuck, cbv1.ReasonLockLost, cbv1.ReasonDatacenterDrifted:
		return true
	}
	return c.Status == metav1.ConditionTrue
}

// restorePlan is how the datacenter is given back.
type restorePlan struct {
	change  *dcChange
	status  metav1.ConditionStatus
	reason  string
	message string
	done    bool
}

// planRestore decides how to give the datacenter back from what it looks like now: each of
// size and config goes back to the original if it still holds what the run set. A value
// that is neither was set by someone else and stays. The lock is released when the run holds
// it; a datacenter another run holds is not touched, and one the run's sweep holds is the
// sweep's to put back.
func planRestore(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, lender *cbv1.BenchmarkSweep, pendingPods []string, expired bool) restorePlan {
	me := types.NamespacedName{Namespace: run.Namespace, Name: run.Name}
	holder, locked := datacenter.LockHolder(dc)
	mine := locked && holder == datacenter.RunHolder(me)
	if lentBy(lender, dc) {
		return restorePlan{status: metav1.ConditionTrue, reason: cbv1.ReasonHeldBySweep, done: true, message: fmt.Sprintf(
			"BenchmarkSweep %s holds the datacenter for all its points (spec.restore atEnd): the next point starts from what this run left, and the sweep puts the datacenter back after its last point",
			lender.Name)}
	}
	var unlock *string
	released := ""
	if mine {
		unlock, released = ptr.To(""), "; lock released"
	}
	change := func(c *dcChange) *dcChange {
		if c.lock == nil && c.size == nil && !c.setConfig {
			return nil
		}
		c.stage = cbv1.ConditionDatacenterRestored
		return c
	}
	refused := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterRestored)
	if refused != nil && refused.Reason == cbv1.ReasonRefused {
		// The apiserver refused the restore; hold the datacenter no longer.
		return restorePlan{change: change(&dcChange{what: "releasing", lock: unlock}), status: metav1.ConditionFalse,
			reason: cbv1.ReasonRefused, message: refused.Message + released, done: true}
	}
	st := run.Status.Datacenter
	if st == nil || st.OriginalSize == nil {
		return restorePlan{change: change(&dcChange{what: "releasing", lock: unlock}), status: metav1.ConditionTrue,
			reason: cbv1.ReasonNothingToRestore, message: "the run did not change the datacenter" + released, done: true}
	}
	if run.Spec.Datacenter != nil && run.Spec.Datacenter.KeepChanges {
		return restorePlan{change: change(&dcChange{what: "releasing", lock: unlock}), status: metav1.ConditionTrue,
			reason: cbv1.ReasonKeptChanges, message: "spec.datacenter.keepChanges is set: the datacenter keeps the run's size and config" + released, done: true}
	}
	original := originalConfig(st)
	wantSize, wantConfig, err := target(run)
	if err != nil {
		// The run never got a target, so it never patched.
		wantSize, wantConfig = *st.OriginalSize, original
	}
	sizeBack := dc.Spec.Size != *st.OriginalSize && dc.Spec.Size == wantSize
	configBack := !datacenter.SameJSON(dc.Spec.Config, original) && datacenter.SameJSON(dc.Spec.Config, wantConfig)
	var theirs []string
	if dc.Spec.Size != *st.OriginalSize && !sizeBack {
		theirs = append(theirs, fmt.Sprintf("spec.size is %d (originally %d), not what the run set", dc.Spec.Size, *st.OriginalSize))
	}
	if !datacenter.SameJSON(dc.Spec.Config, original) && !configBack {
		theirs = append(theirs, "spec.config is neither the original nor what the run set")
	}
	if locked && !mine {
		if sizeBack || configBack {
			return restorePlan{status: metav1.ConditionFalse, reason: cbv1.ReasonLockLost, done: true, message: fmt.Sprintf(
				"the run's lock on CassandraDatacenter %s was removed before the run restored it, and %s holds it now: "+
					"it keeps the run's size %d and config; restore it by hand from status.datacenter.originalSize and originalConfig (see docs/datacenter-lifecycle.md)",
				keyOf(dc), holder, dc.Spec.Size)}
		}
		return restorePlan{status: metav1.ConditionTrue, reason: cbv1.ReasonRestored, done: true,
			message: fmt.Sprintf("the datacenter has its original size %d and config", *st.OriginalSize)}
	}
	c := &dcChange{what: "restoring", lock: unlock, restore: true}
	if configBack {
		c.config, c.setConfig = nil, true
		if st.HadConfig {
			c.config = original
		}
	}
	if sizeBack && datacenter.Resizing(dc) {
		// cass-operator refuses a size change while it scales; the config goes back now, the
		// size once it can, within the deadline.
		pending := datacenter.PendingWithPods(dc, pendingPods)
		if !expired {
			c.lock = nil
			return restorePlan{change: change(c), status: metav1.ConditionFalse, reason: cbv1.ReasonRestoring, message: fmt.Sprintf(
				"config restored; waiting for cass-operator to finish resizing (%s) before restoring size %d", pending, *st.OriginalSize)}
		}
		return restorePlan{change: change(c), status: metav1.ConditionFalse, reason: cbv1.ReasonRestoreStuck, done: true, message: fmt.Sprintf(
			"config restored%s, but cass-operator was still resizing (%s) at the deadline, so spec.size is %d, originally %d: "+
				"once the scaling finishes or is resolved, set spec.size back to %d by hand (see docs/datacenter-lifecycle.md)",
			released, pending, dc.Spec.Size, *st.OriginalSize, *st.OriginalSize)}
	}
	if sizeBack {
		c.size = st.OriginalSize
	}
	if len(theirs) > 0 {
		return restorePlan{change: change(c), status: metav1.ConditionFalse, reason: cbv1.ReasonDatacenterDrifted, done: true,
			message: "restored what the run set; left what someone else changed: " + strings.Join(theirs, "; ") + released}
	}
	if !sizeBack && !configBack && !st.Changed {
		return restorePlan{change: change(c), status: metav1.ConditionTrue, reason: cbv1.ReasonNothingToRestore,
			message: "the run did not change the datacenter" + released, done: true}
	}
	return restorePlan{change: change(c), status: metav1.ConditionTrue, reason: cbv1.ReasonRestored, done: true,
		message: fmt.Sprintf("restored size %d and the original config%s", *st.OriginalSize, released)}
}

// target is the size and config the run asks of its datacenter: the originals with the
// run's size and its config merged in.
func target(run *cbv1.BenchmarkRun) (int32, json.RawMessage, error) {
	st := run.Status.Datacenter
	size := *st.OriginalSize
	config := originalConfig(st)
	tuning := run.Spec.Datacenter
	if tuning != nil && tuning.Size != nil {
		size = *tuning.Size
	}
	if tuning != nil && tuning.Config != nil && len(datacenter.Sections(tuning.Config)) > 0 {
		merged, err := datacenter.MergeConfig(config, tuning.Config)
		if err != nil {
			return 0, nil, err
		}
		config = merged
	}
	return size, config, nil
}

func originalConfig(st *cbv1.DatacenterStatus) json.RawMessage {
	if st.HadConfig && st.OriginalConfig != nil {
		return st.OriginalConfig.Raw
	}
	return nil
}

func hasConfig(c json.RawMessage) bool {
	s := strings.TrimSpace(string(c))
	return s != "" && s != "null"
}

// waitToFind records why the run cannot start yet and fails it once the deadline passes.
func (d *decider) waitToFind(reason, msg string) {
	run := d.run
	deadline := findDeadline(run)
	if !d.o.now.Before(deadline) {
		d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonPrepareDeadlineExpired,
			fmt.Sprintf("%s; gave up after deadlines.prepare (%s)", msg, prepareTimeout(run)))
		return
	}
	d.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, reason,
		fmt.Sprintf("%s (until %s)", msg, deadline.UTC().Format(time.RFC3339)))
	d.requeue(deadline.Sub(d.o.now))
}

// prepareExpired fails the run if the prepare deadline has passed.
func (d *decider) prepareExpired(why string) bool {
	if d.o.now.Before(prepareDeadline(d.run)) {
		return false
	}
	d.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonPrepareDeadlineExpired,
		fmt.Sprintf("%s within deadlines.prepare (%s)", why, prepareTimeout(d.run)))
	return true
}

// resolveTarget resolves where and as whom the pods connect, or why they may not.
func resolveTarget(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, image string, allowed []string) (jobs.Target, string, string) {
	t := jobs.Target{
		Image:               image,
		Host:                dc.GetDatacenterServiceName() + "." + dc.Namespace + ".svc",
		Port:                datacenter.NativePort(dc),
		CassandraDatacenter: dc.DatacenterName(),
		AllowDropKeyspaces:  dc.Annotations[cbv1.AllowDropKeyspacesAnnotation],
	}
	// Every cass-operator pod runs the management API, over plain HTTP unless the datacenter
	// asks for mutual TLS, which setup's client does not speak: then setup only lists the
	// snapshots a drop leaves and says how to clear them.
	if dc.Spec.ManagementApiAuth.Manual == nil {
		t.ClearSnapshots = podenv.ClearSnapshotsManagementAPI
	}
	if run.Spec.Writers.Image != "" {
		t.Image = run.Spec.Writers.Image
		if !imageAllowed(t.Image, image, allowed) {
			return t, cbv1.ReasonImageNotAllowed, fmt.Sprintf(
				"spec.writers.image %s is not allowed: its pods receive Cassandra credentials, so the manager runs only its own image %q "+
					"and those its --allowed-images lists; remove spec.writers.image or ask an admin to allow it", t.Image, image)
		}
	}
	conn := run.Spec.Connection
	if conn != nil && conn.Service != "" {
		if conn.CredentialsSecretRef == nil {
			return t, cbv1.ReasonInvalidSpec, "spec.connection.service needs spec.connection.credentialsSecretRef: " +
				"the datacenter's superuser credentials are sent only to the datacenter's own service"
		}
		if dc.Namespace == run.Namespace && conn.CredentialsSecretRef.Name == dc.GetSuperuserSecretNamespacedName().Name {
			return t, cbv1.ReasonInvalidSpec, fmt.Sprintf("spec.connection.credentialsSecretRef names the datacenter's superuser secret %s, "+
				"which is sent only to the datacenter's own service, not to spec.connection.service %s: name a secret of your own",
				conn.CredentialsSecretRef.Name, conn.Service)
		}
		t.Host = conn.Service
	}
	if conn != nil && conn.Port != nil {
		t.Port = *conn.Port
	}
	switch {
	case conn != nil && conn.CredentialsSecretRef != nil:
		t.CredentialsSecret = conn.CredentialsSecretRef.Name
	case dc.Namespace == run.Namespace:
		t.CredentialsSecret = dc.GetSuperuserSecretNamespacedName().Name
	default:
		return t, cbv1.ReasonInvalidSpec, fmt.Sprintf("the datacenter is in namespace %s and its superuser secret cannot be used from namespace %s: "+
			"create a secret with keys username and password in %s and set spec.connection.credentialsSecretRef",
			dc.Namespace, run.Namespace, run.Namespace)
	}
	if t.Image == "" {
		return t, cbv1.ReasonInvalidSpec, "no writer image: set spec.writers.image or start the manager with --writer-image"
	}
	return t, "", ""
}

// imageAllowed tells whether a run may name an image: the manager's own, or one the
// allowlist names exactly or by a prefix ending in *.
func imageAllowed(image, own string, allowed []string) bool {
	if image == own {
		return true
	}
	for _, a := range allowed {
		if a == image || (strings.HasSuffix(a, "*") && strings.HasPrefix(image, strings.TrimSuffix(a, "*"))) {
			return true
		}
	}
	return false
}

func keyOf(dc *cassdcapi.CassandraDatacenter) types.NamespacedName {
	return types.NamespacedName{Namespace: dc.Namespace, Name: dc.Name}
}

func missingWriters(got []*summary.Summary, n int32) []int32 {
	seen := map[int32]bool{}
	for _, s := range got {
		seen[s.Index] = true
	}
	var missing []int32
	for i := int32(0); i < n; i++ {
		if !seen[i] {
			missing = append(missing, i)
		}
	}
	return missing
}

func joinInts(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// lastStart is when the last writer container started, or zero while any has not.
func lastStart(pods []corev1.Pod) time.Time {
	var last time.Time
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			var at metav1.Time
			switch {
			case cs.State.Running != nil:
				at = cs.State.Running.StartedAt
			case cs.State.Terminated != nil:
				at = cs.State.Terminated.StartedAt
			default:
				return time.Time{}
			}
			if at.After(last) {
				last = at.Time
			}
		}
	}
	return last
}

func orUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}
