package controllers

import (
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
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
	// pricing is the manager's pricing ConfigMap's, read for a run without prices once its
	// writers run.
	pricing defaultPricing
	// image is the manager's own image: the default, and always allowed.
	image string
	// allowedImages are further images runs may name (a trailing * matches a prefix).
	allowedImages []string
	// notWatched is set when the run's datacenter is in a namespace the manager does not watch.
	notWatched bool
	// dc is the run's datacenter, nil when it does not exist.
	dc *cassdcapi.CassandraDatacenter
	// named are the datacenters of a run across several, in the order of spec.datacenters,
	// nil for one that does not exist or is not watched.
	named []*cassdcapi.CassandraDatacenter
	// several are the datacenters of a run across several in the order they are taken
	// (datacenter.Keys), with what the pass read of each (benchmarkrun_several.go).
	several []heldDC
	// key is the datacenter a view of one of several is of (decider.view); empty otherwise.
	key types.NamespacedName
	// clusterDCs are the CassandraDatacenters the manager sees, read when the run names
	// datacenters in schema.replication.datacenters, which must be of the run's cluster.
	clusterDCs []cassdcapi.CassandraDatacenter
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
	// nudgeInterval is how often the run asks cass-operator to look again while it waits for
	// the datacenter to apply the run's change (lending.Nudge); zero never.
	nudgeInterval time.Duration
	// dcPendingPods are the datacenter's pods that are not ready, read only while a restore
	// waits for cass-operator to finish resizing, or while the run waits for the datacenter
	// it patched to become ready.
	dcPendingPods []string
	// dcPods are the datacenter's pods, read while the run waits for its patch to be applied:
	// their rendered config shows whether cass-operator rolled the patch out.
	dcPods []corev1.Pod
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
	dc            *lending.Change
	// on is the datacenter dc changes, when it is one of a run's several; nil for the run's one.
	on     *cassdcapi.CassandraDatacenter
	create *batchv1.Job
	// reports are ConfigMaps of writer reports to store before anything else is done.
	reports []*corev1.ConfigMap
	// createStage is the condition a refusal of create fails.
	createStage  string
	requeueAfter time.Duration
	// disrupt is the disruption to make (benchmarkrun_disrupt.go).
	disrupt *disruptAction
}

// decide chooses the next step. It is pure: the observation is not changed.
func decide(o observation) step {
	d := &decider{o: o, run: o.run.DeepCopy()}
	d.decide()
	d.s.status = d.run.Status
	return d.s
}

// decider builds one step. The stages write neither onto it nor onto the run: each returns a
// stageResult, and apply combines the results in order, so that a later stage reads the run as
// the earlier ones left it.
type decider struct {
	o   observation
	run *cbv1.BenchmarkRun
	s   step
}

// stageResult is what one stage decided, in the manner of cert-manager's policy chain: the
// conditions it sets (in order), what it records in the run's status (the originals, the
// resolved settings, the results), the one change the reconciler makes, and when to look
// again. done tells whether the stage is complete, so that the next one may run.
type stageResult struct {
	conds []stageCondition
	// records change the run's status, in order, after the conditions are set.
	records []func(*cbv1.BenchmarkRunStatus)
	// target is the run's target on its datacenter, once find resolved it.
	target *jobs.Target
	// reports are ConfigMaps of writer reports to store before anything else is done.
	reports []*corev1.ConfigMap
	// dc is the change to make to the datacenter (on, for one of several); stop the run's
	// Jobs to suspend first.
	dc   *lending.Change
	on   *cassdcapi.CassandraDatacenter
	stop []*batchv1.Job
	// create is a Job to create, createStage the condition its refusal fails; deleteForeign
	// a Job of the same name an earlier run left.
	create        *batchv1.Job
	createStage   string
	deleteForeign *batchv1.Job
	requeueAfter  time.Duration
	disrupt       *disruptAction
	done          bool
}

// stageCondition is one condition a stage sets.
type stageCondition struct {
	typ, reason, msg string
	status           metav1.ConditionStatus
}

// complete is the result of a stage with nothing to do.
var complete = stageResult{done: true}

func (r *stageResult) set(t string, status metav1.ConditionStatus, reason, msg string) {
	r.conds = append(r.conds, stageCondition{typ: t, status: status, reason: reason, msg: msg})
}

func (r *stageResult) fail(t, reason, msg string) { r.set(t, metav1.ConditionFalse, reason, msg) }

// record changes the run's status when the result is applied.
func (r *stageResult) record(f func(*cbv1.BenchmarkRunStatus)) { r.records = append(r.records, f) }

// merge adds what a helper of the stage decided: its conditions and records after r's, its
// change, Jobs and reports where it has any, the earlier requeue.
func (r *stageResult) merge(o stageResult) {
	r.conds, r.records = append(r.conds, o.conds...), append(r.records, o.records...)
	r.stop = append(r.stop, o.stop...)
	if o.dc != nil {
		r.dc, r.on = o.dc, o.on
	}
	if o.create != nil {
		r.create, r.createStage = o.create, o.createStage
	}
	if o.deleteForeign != nil {
		r.deleteForeign = o.deleteForeign
	}
	if o.reports != nil {
		r.reports = o.reports
	}
	if o.disrupt != nil {
		r.disrupt = o.disrupt
	}
	r.requeueAt(o.requeueAfter)
}

// requeue asks to look again after at most this long (plus a second, so that a deadline has
// passed when the next pass looks).
func (r *stageResult) requeue(after time.Duration) {
	r.requeueAt(max(after, 0) + time.Second)
}

func (r *stageResult) requeueAt(after time.Duration) {
	if after > 0 && (r.requeueAfter == 0 || after < r.requeueAfter) {
		r.requeueAfter = after
	}
}

// apply combines a stage's result into the step: its conditions are set on the run in order,
// then its records; its change, reports and Jobs become the step's, the earliest requeue wins.
// It returns r.done.
func (d *decider) apply(r stageResult) bool {
	for _, c := range r.conds {
		conditions.Set(&d.run.Status.Conditions, d.run.Generation, d.o.now, c.typ, c.status, c.reason, c.msg)
	}
	for _, record := range r.records {
		record(&d.run.Status)
	}
	if r.reports != nil {
		d.s.reports = r.reports
	}
	if r.dc != nil {
		d.s.dc, d.s.on = r.dc, r.on
	}
	d.s.stop = append(d.s.stop, r.stop...)
	if r.create != nil {
		d.s.create, d.s.createStage = r.create, r.createStage
	}
	if r.deleteForeign != nil {
		d.s.deleteForeign = r.deleteForeign
	}
	if r.disrupt != nil {
		d.s.disrupt = r.disrupt
	}
	if r.requeueAfter > 0 && (d.s.requeueAfter == 0 || r.requeueAfter < d.s.requeueAfter) {
		d.s.requeueAfter = r.requeueAfter
	}
	return r.done
}

func (d *decider) me() types.NamespacedName {
	return types.NamespacedName{Namespace: d.run.Namespace, Name: d.run.Name}
}

// key is the datacenter the decider decides about: the run's one, or that of a view of one
// of several.
func (d *decider) key() types.NamespacedName {
	if d.o.key.Name != "" {
		return d.o.key
	}
	return datacenter.Key(d.run)
}

func (d *decider) decide() {
	run := d.run
	hasFinalizer := controllerutil.ContainsFinalizer(run, cbv1.Finalizer)
	if !run.DeletionTimestamp.IsZero() {
		// A restore patch removes the nudge itself; otherwise one may be left to remove.
		if hasFinalizer && d.apply(d.giveBack(run.DeletionTimestamp.Time)) && (d.s.dc != nil || d.apply(d.afterGiveBack(false))) {
			d.s.removeFinalizer = true
		}
		return
	}
	if lending.Finished(run) {
		// The finalizer goes in a pass after the final status is stored, once cass-operator
		// rolled out what the run gave back (benchmarkrun_settle.go).
		d.s.removeFinalizer = hasFinalizer && d.apply(d.afterGiveBack(true))
		return
	}
	if o := pendingOutcome(run); o != nil {
		if d.apply(d.giveBack(o.since)) {
			d.apply(d.finish(o))
		}
		return
	}
	// The finalizer goes on before the run touches the datacenter, so that deleting the run
	// can always put the datacenter back; the reconciler adds it before any other write.
	d.s.addFinalizer = !hasFinalizer
	d.advance()
}

// finish is the outcome of a run whose datacenter was given back: Succeeded, and every stage's
// condition saying how it ended.
func (d *decider) finish(o *outcome) stageResult {
	var r stageResult
	status, reason := metav1.ConditionTrue, cbv1.ReasonSucceeded
	if !o.succeeded {
		status, reason = metav1.ConditionFalse, o.reason
	}
	r.set(cbv1.ConditionSucceeded, status, reason, o.message)
	generation, now := d.run.Generation, d.o.now
	r.record(func(st *cbv1.BenchmarkRunStatus) {
		if st.CompletionTime == nil {
			st.CompletionTime = &metav1.Time{Time: now}
		}
		// The one place a run finishes: no stage may go on saying it is under way.
		conditions.Settle(&st.Conditions, generation, now, "run", runStages)
		st.Progress = nil
	})
	r.done = true
	return r
}

// stage is one stage of advance: it decides from the observation, the run as the stages
// before it left it, and the target find resolved.
type stage func(t jobs.Target) stageResult

// advance takes the run one stage further: find, lock (and record), prepare (check, patch,
// wait), set up, load. It only combines the stages' results: each runs once the one before it
// is done, and the first that is not ends the pass.
func (d *decider) advance() {
	var t jobs.Target
	for _, s := range []stage{d.find, d.lock, d.prepare, d.setUp, d.load} {
		r := s(t)
		if r.target != nil {
			t = *r.target
		}
		if !d.apply(r) {
			return
		}
	}
}

// find checks that the run's datacenter exists where the manager watches and resolves the
// run's target on it (jobs.ResolveTarget): image, service, port, credentials.
func (d *decider) find(jobs.Target) stageResult {
	run, o := d.run, d.o
	key := datacenter.Key(run)
	var r stageResult
	if len(run.Spec.Datacenters) > 0 {
		return d.findSeveral()
	}
	if o.notWatched {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, fmt.Sprintf(
			"CassandraDatacenter %s is in namespace %s, which this manager does not watch (--watch-namespaces); "+
				"run it from a watched namespace or add the namespace to the manager's", key, key.Namespace))
		return r
	}
	in := d.takeInput()
	if t, ok := lending.Exists(&in); ok {
		return d.taken(t)
	}
	if r, refused := d.disruptionsAllowed(&in); refused {
		return r
	}
	dc := o.dc
	target, reason, msg := jobs.ResolveTarget(run, dc, o.image, o.allowedImages)
	if reason != "" {
		if holder, locked := datacenter.LockHolder(dc); !locked || holder != datacenter.RunHolder(d.me()) {
			msg += "; the datacenter was not changed"
		}
		r.fail(cbv1.ConditionDatacenterReady, reason, msg)
		return r
	}
	resolved := &cbv1.ResolvedSettings{
		Image: target.Image, Service: target.Host, Port: target.Port, CredentialsSecret: target.CredentialsSecret, Namespace: run.Namespace,
	}
	r.record(func(st *cbv1.BenchmarkRunStatus) { st.Resolved = resolved })
	r.target, r.done = &target, true
	return r
}

func keyOf(dc *cassdcapi.CassandraDatacenter) types.NamespacedName {
	return types.NamespacedName{Namespace: dc.Namespace, Name: dc.Name}
}
