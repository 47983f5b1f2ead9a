package controllers

import (
	"encoding/json"
	"fmt"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/lending"
)

// The prepare stage: patch the datacenter to the run's target and wait until cass-operator
// applied it; after that, any change is drift.

// prepare checks the settings, patches the datacenter and waits until cass-operator applied
// the patch. Readiness gates this stage only: once the datacenter was ready, a change is
// someone else's (drift), not something to wait for.
func (d *decider) prepare(t jobs.Target) stageResult {
	if len(d.o.several) > 0 && d.o.key.Name == "" {
		return d.prepareSeveral(t)
	}
	run, dc := d.run, d.o.dc
	var r stageResult
	st := run.Status.Datacenter
	wantSize, wantConfig, err := target(run)
	if err != nil {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonInvalidSpec, err.Error())
		return r
	}
	if st.PatchedGeneration == 0 {
		return d.patch(dc, t, wantSize, wantConfig)
	}
	if drift := drifted(dc, st, wantSize, wantConfig, meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionDatacenterReady)); drift != "" {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterDrifted, fmt.Sprintf(
			"CassandraDatacenter %s was changed by someone else while the run held it: %s; what the run measures would not be what it asked for",
			keyOf(dc), drift))
		return r
	}
	if meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionDatacenterReady) {
		return complete
	}
	if invalid, msg := datacenter.Invalid(dc); invalid {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterInvalid,
			"cass-operator marked CassandraDatacenter "+keyOf(dc).String()+" invalid: "+msg)
		return r
	}
	stale := datacenter.StaleConfigPods(d.o.dcPods, wantConfig)
	ready, why := datacenter.Ready(dc, st.PatchedGeneration)
	if ready && len(stale) > 0 {
		ready, why = false, fmt.Sprintf("cass-operator reports generation %d applied, but pods run an earlier config: %s",
			dc.Status.ObservedGeneration, strings.Join(stale, ", "))
	}
	// Nor is it ready while one of its pods is not: cass-operator's status can trail its pods
	// (a pod the StatefulSet controller is replacing is terminating while the conditions, read
	// from the manager's cache, still say ready), and a node that is not ready has no address
	// behind the datacenter's service, so setup would find no node to connect to.
	if ready && len(d.o.dcPendingPods) > 0 {
		ready, why = false, fmt.Sprintf("cass-operator reports generation %d applied, but pods are not ready", dc.Status.ObservedGeneration)
	}
	if !ready {
		if len(d.o.dcPendingPods) > 0 {
			why += "; pods not ready: " + strings.Join(d.o.dcPendingPods, ", ")
		}
		if late, ok := d.expired("the datacenter did not become ready: " + why); ok {
			return late
		}
		msg := "waiting for cass-operator: " + why
		if datacenter.UpdateHeld(dc, st.PatchedGeneration, stale) {
			r.dc = &lending.Change{What: "allowing cass-operator to roll out the run's change to", AllowUpdateOnce: true,
				Stage: cbv1.ConditionDatacenterReady}
			msg += fmt.Sprintf("; cass-operator holds the change back, so the run sets %s=%s on the datacenter (cass-operator removes it)",
				cassdcapi.UpdateAllowedAnnotation, cassdcapi.AllowUpdateOnce)
		}
		d.nudge(&r, dc)
		r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating, msg)
		r.requeue(prepareDeadline(run).Sub(d.o.now))
		return r
	}
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionTrue, cbv1.ReasonDatacenterReady,
		fmt.Sprintf("CassandraDatacenter %s is ready with %d nodes", keyOf(dc), st.Size))
	r.done = true
	return r
}

// patch brings the datacenter to the run's target: wait for an earlier change to settle,
// check the settings, then patch it. The pass after the patch records it (PatchedGeneration)
// and waits for cass-operator.
func (d *decider) patch(dc *cassdcapi.CassandraDatacenter, t jobs.Target, wantSize int32, wantConfig json.RawMessage) stageResult {
	run, st := d.run, d.run.Status.Datacenter
	var r stageResult
	if invalid, msg := datacenter.Invalid(dc); invalid {
		r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonDatacenterInvalid,
			"cass-operator marked CassandraDatacenter "+keyOf(dc).String()+" invalid: "+msg)
		return r
	}
	atTarget := dc.Spec.Size == wantSize && datacenter.SameJSON(dc.Spec.Config, wantConfig)
	// A datacenter still applying an earlier change (the previous run's restore rolling
	// through its nodes, say) is waited for before its settings are checked or changed:
	// the check would meet restarting nodes, and the run's change would pile onto the
	// other. At the target, the change is this run's own and is waited for below.
	if !atTarget {
		if ready, why := datacenter.Ready(dc, dc.Generation); !ready {
			if late, ok := d.expired("cass-operator did not finish an earlier change of the datacenter: " + why); ok {
				return late
			}
			// The earlier change is often the previous run's restore, rolling a one-node
			// datacenter: the run holds the lock now, so it nudges in the previous one's stead.
			d.nudge(&r, dc)
			r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
				"waiting for cass-operator to finish an earlier change before the run's settings are checked and applied: "+why)
			r.requeue(prepareDeadline(run).Sub(d.o.now))
			return r
		}
	}
	if !atTarget {
		if checked, ok := d.preflight(t); !ok {
			return checked
		}
	}
	if atTarget {
		// Whoever patched (this pass's predecessor, perhaps a manager that crashed before
		// writing status), the datacenter is at the run's target now.
		orig, generation := lending.OriginalsOf(&st.HeldDatacenter), dc.Generation
		changed := dc.Spec.Size != orig.Size || !datacenter.SameJSON(dc.Spec.Config, orig.Config)
		r.record(func(st *cbv1.BenchmarkRunStatus) {
			st.Datacenter.Size, st.Datacenter.PatchedGeneration, st.Datacenter.Changed = wantSize, generation, changed
		})
		r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
			describeChange(orig.Size, wantSize, changed))
		return r
	}
	sizeChanges := dc.Spec.Size != wantSize
	if sizeChanges && datacenter.Resizing(dc) {
		if late, ok := d.expired("cass-operator kept resizing the datacenter, so its size could not change"); ok {
			return late
		}
		r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
			"cass-operator is resizing the datacenter; its size can change once that is done")
		r.requeue(prepareDeadline(run).Sub(d.o.now))
		return r
	}
	r.dc = &lending.Change{What: "sizing and tuning", Size: ptr.To(wantSize), Config: wantConfig, SetConfig: true,
		Stage: cbv1.ConditionDatacenterReady}
	r.set(cbv1.ConditionDatacenterReady, metav1.ConditionFalse, cbv1.ReasonDatacenterUpdating,
		fmt.Sprintf("patching CassandraDatacenter %s to size %d with the run's config", keyOf(dc), wantSize))
	return r
}

// nudge adds to what r changes a nudge of cass-operator (cbv1.ReconcileRequestedAnnotation),
// which may sit in its error backoff with nothing to wake it (one node rolling), once the
// nudge interval has passed since the run began to wait (DatacenterReady's last transition)
// or since the last nudge; and looks again when the next one is due.
func (d *decider) nudge(r *stageResult, dc *cassdcapi.CassandraDatacenter) {
	since := d.o.now
	if c := meta.FindStatusCondition(d.run.Status.Conditions, cbv1.ConditionDatacenterReady); c != nil {
		since = c.LastTransitionTime.Time
	}
	nudge, next := lending.Nudge(dc, since, d.o.now, d.o.nudgeInterval)
	if nudge != nil {
		if r.dc == nil {
			r.dc = &lending.Change{What: "asking cass-operator to look again at", Stage: cbv1.ConditionDatacenterReady}
		}
		r.dc.Nudge = nudge
	}
	r.requeueAt(next)
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

func describeChange(originalSize, size int32, changed bool) string {
	if !changed {
		return "the datacenter already matches the run; waiting for it to be ready"
	}
	var parts []string
	if size != originalSize {
		parts = append(parts, fmt.Sprintf("size %d -> %d", originalSize, size))
	}
	parts = append(parts, "config merged")
	return "patched the datacenter (" + strings.Join(parts, ", ") + "); waiting for cass-operator to apply it"
}

// target is the size and config the run asks of its datacenter (lending.Target).
func target(run *cbv1.BenchmarkRun) (int32, json.RawMessage, error) {
	st := run.Status.Datacenter
	v, err := lending.Target(*lending.OriginalsOf(&st.HeldDatacenter), run.Spec.Datacenter)
	return v.Size, v.Config, err
}

// expired is the failure of a run whose prepare deadline has passed, saying why; ok tells
// whether it has.
func (d *decider) expired(why string) (stageResult, bool) {
	var r stageResult
	if d.o.now.Before(prepareDeadline(d.run)) {
		return r, false
	}
	r.fail(cbv1.ConditionDatacenterReady, cbv1.ReasonPrepareDeadlineExceeded,
		fmt.Sprintf("%s within deadlines.prepare (%s)", why, prepareTimeout(d.run)))
	return r, true
}
