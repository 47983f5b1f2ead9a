package lending

import (
	"encoding/json"
	"fmt"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// Values are a size and a config a holder set on the datacenter.
type Values struct {
	Size   int32
	Config json.RawMessage
}

// Restore is what a restore is planned from: the datacenter as it is now and what the holder
// recorded.
type Restore struct {
	Holder datacenter.Holder
	// DC is the datacenter, nil when it no longer exists (or was never reachable).
	DC *cassdcapi.CassandraDatacenter
	// Originals are what the holder recorded, nil when it recorded nothing.
	Originals *Originals
	// Set is what the holder set: a value that is neither the original nor this was set by
	// someone else and stays. Nil when every difference is the holder's own: a sweep's runs
	// fail on anyone else's change while the sweep holds the lock.
	Set *Values
	// Changed: the holder recorded that it changed the datacenter (a run's status.datacenter.changed).
	Changed bool
	// KeepChanges: the holder asked to keep what it set (spec.datacenter.keepChanges).
	KeepChanges bool
	// Refused is the message of a restore the apiserver refused, empty when none was.
	Refused string
	// PendingPods are the datacenter's pods that are not ready, read while it resizes.
	PendingPods []string
	// Expired: the deadline for giving back has passed.
	Expired bool
	// LentBy names the sweep that holds the datacenter for the holder (restore atEnd), empty
	// when none does: the datacenter is the sweep's to put back.
	LentBy string
	// Nudge is the value of cbv1.ReconcileRequestedAnnotation to set while the restore waits
	// for cass-operator (Nudge), nil when no nudge is due. Any other plan removes the
	// annotation, whatever state it finds: the datacenter is the user's.
	Nudge *string
}

// Plan is how the datacenter is given back, and the DatacenterRestored condition it sets.
type Plan struct {
	Change  *Change
	Status  metav1.ConditionStatus
	Reason  string
	Message string
	// Done: nothing more to do, restored or given up on with the reason named.
	Done bool
}

// PlanRestore decides how to give the datacenter back from what it looks like now: each of
// size and config goes back to the original if it still holds what the holder set. The lock is
// released when the holder has it; a datacenter someone else locked meanwhile is not touched.
// While cass-operator scales (it refuses a size change meanwhile) the config goes back at once
// and the size waits, until expired; then the lock is released and the condition says what to
// do by hand.
func PlanRestore(r Restore) Plan {
	noun := nounOf(r.Holder)
	dc := r.DC
	switch {
	case dc == nil:
		return Plan{Status: metav1.ConditionTrue, Reason: cbv1.ReasonNothingToRestore, Done: true,
			Message: "the datacenter no longer exists or was never reachable"}
	case r.LentBy != "":
		return Plan{Status: metav1.ConditionTrue, Reason: cbv1.ReasonHeldBySweep, Done: true, Message: fmt.Sprintf(
			"BenchmarkSweep %s holds the datacenter for all its points (spec.restore atEnd): the next point starts from what this run left, and the sweep puts the datacenter back after its last point",
			r.LentBy)}
	}
	holder, locked := datacenter.LockHolder(dc)
	mine := locked && holder == r.Holder
	var unlock *string
	released := ""
	if mine {
		unlock, released = ptr.To(""), "; lock released"
	}
	// A datacenter someone else locked meanwhile is theirs, nudges and all.
	var unnudged *string
	if !locked || mine {
		unnudged = unnudge(dc)
	}
	release := func(status metav1.ConditionStatus, reason, msg string) Plan {
		return Plan{Change: restoreChange(&Change{What: "releasing", Lock: unlock, Nudge: unnudged}), Status: status, Reason: reason,
			Message: msg + released, Done: true}
	}
	orig := r.Originals
	switch {
	case r.Refused != "":
		// The apiserver refused the restore; hold the datacenter no longer.
		return release(metav1.ConditionFalse, cbv1.ReasonRefused, r.Refused)
	case orig == nil:
		return release(metav1.ConditionTrue, cbv1.ReasonNothingToRestore, "the "+noun+" did not change the datacenter")
	case r.KeepChanges:
		return release(metav1.ConditionTrue, cbv1.ReasonKeptChanges,
			"spec.datacenter.keepChanges is set: the datacenter keeps the "+noun+"'s size and config")
	}
	set := r.Set
	if set == nil {
		set = &Values{Size: dc.Spec.Size, Config: dc.Spec.Config}
	}
	sizeBack := dc.Spec.Size != orig.Size && dc.Spec.Size == set.Size
	configBack := !datacenter.SameJSON(dc.Spec.Config, orig.Config) && datacenter.SameJSON(dc.Spec.Config, set.Config)
	if locked && !mine {
		if sizeBack || configBack {
			return Plan{Status: metav1.ConditionFalse, Reason: cbv1.ReasonLockLost, Done: true, Message: fmt.Sprintf(
				"the %s's lock on CassandraDatacenter %s/%s was removed before the %s restored it, and %s holds it now: "+
					"it keeps the %s's size %d and config; %s",
				noun, dc.Namespace, dc.Name, noun, holder, noun, dc.Spec.Size, ByHand(r.Holder))}
		}
		return Plan{Status: metav1.ConditionTrue, Reason: cbv1.ReasonRestored, Done: true,
			Message: fmt.Sprintf("the datacenter has its original size %d and config", orig.Size)}
	}
	c := &Change{What: "restoring", Lock: unlock, Restore: true, Nudge: unnudged}
	if configBack {
		c.Config, c.SetConfig = orig.Config, true
	}
	if sizeBack && datacenter.Resizing(dc) {
		return resizing(r, c, released)
	}
	if sizeBack {
		c.Size = ptr.To(orig.Size)
	}
	if theirs := theirs(dc, orig, noun, sizeBack, configBack); len(theirs) > 0 {
		return Plan{Change: restoreChange(c), Status: metav1.ConditionFalse, Reason: cbv1.ReasonDatacenterDrifted, Done: true,
			Message: "restored what the " + noun + " set; left what someone else changed: " + strings.Join(theirs, "; ") + released}
	}
	if !sizeBack && !configBack && !r.Changed {
		return Plan{Change: restoreChange(c), Status: metav1.ConditionTrue, Reason: cbv1.ReasonNothingToRestore, Done: true,
			Message: fmt.Sprintf("the %s did not change the datacenter: it has its original size %d and config%s", noun, orig.Size, released)}
	}
	return Plan{Change: restoreChange(c), Status: metav1.ConditionTrue, Reason: cbv1.ReasonRestored, Done: true,
		Message: fmt.Sprintf("restored size %d and the original config%s", orig.Size, released)}
}

// resizing plans the restore of a datacenter cass-operator is scaling: it refuses a size
// change meanwhile, so the config goes back now and the size once it can, within the deadline.
func resizing(r Restore, c *Change, released string) Plan {
	dc, orig := r.DC, r.Originals
	pending := datacenter.PendingWithPods(dc, r.PendingPods)
	if !r.Expired {
		c.Lock, c.Nudge = nil, r.Nudge
		return Plan{Change: restoreChange(c), Status: metav1.ConditionFalse, Reason: cbv1.ReasonRestoring, Message: fmt.Sprintf(
			"config restored; waiting for cass-operator to finish resizing (%s) before restoring size %d", pending, orig.Size)}
	}
	return Plan{Change: restoreChange(c), Status: metav1.ConditionFalse, Reason: cbv1.ReasonRestoreStuck, Done: true, Message: fmt.Sprintf(
		"config restored%s, but cass-operator was still resizing (%s) at the deadline, so spec.size is %d, originally %d: "+
			"once the scaling finishes or is resolved, set spec.size back to %d by hand (see docs/datacenter-lifecycle.md)",
		released, pending, dc.Spec.Size, orig.Size, orig.Size)}
}

// theirs names what differs from the originals and is not what the holder set.
func theirs(dc *cassdcapi.CassandraDatacenter, orig *Originals, noun string, sizeBack, configBack bool) []string {
	var out []string
	if dc.Spec.Size != orig.Size && !sizeBack {
		out = append(out, fmt.Sprintf("spec.size is %d (originally %d), not what the %s set", dc.Spec.Size, orig.Size, noun))
	}
	if !datacenter.SameJSON(dc.Spec.Config, orig.Config) && !configBack {
		out = append(out, "spec.config is neither the original nor what the "+noun+" set")
	}
	return out
}

// restoreChange is the change, failing DatacenterRestored if refused; nil when it writes nothing.
func restoreChange(c *Change) *Change {
	if c.Empty() {
		return nil
	}
	c.Stage = cbv1.ConditionDatacenterRestored
	return c
}
