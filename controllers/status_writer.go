package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/conditions"
)

// One way to write status, emit events and keep finalizers for both kinds, in the manner of
// cluster-api's patch helper (util/patch): a pass keeps the object as read, changes a copy's
// status, and writes it once, at the end, when it changed. Events follow the write and come
// from what it changed, so a status that a conflict discards emits nothing.
//
// One error policy: status records only what was done, and the error is returned after the
// write. A run's pass performs one decided step, whole or not at all, so a pass that fails
// writes nothing of the step; a sweep's phases record each thing once it is done, so what they
// recorded is written even when a later phase fails.

// statusEvent is an event a status write emits once the status is stored.
type statusEvent struct {
	warning                 bool
	reason, action, message string
}

// warningReasons are reasons worth a Warning event whatever the condition's status.
var warningReasons = map[string]bool{
	cbv1.ReasonRestoreStuck: true,
	cbv1.ReasonLockLost:     true,
	cbv1.ReasonInvalidPoint: true,
}

// conditionEvents are the events of what a write changed: one per condition whose status or
// reason changed, but kstatus' Ready, Reconciling and Stalled, which only sum the others up. A
// False condition is a Warning when its reason means failure, or when it is Succeeded.
func conditionEvents(before, after []metav1.Condition) []statusEvent {
	var out []statusEvent
	for _, c := range conditions.Changed(before, after) {
		if c.Type == cbv1.ConditionReady || c.Type == cbv1.ConditionReconciling || c.Type == cbv1.ConditionStalled {
			continue
		}
		failed := c.Status == metav1.ConditionFalse && (failedReasons[c.Reason] || c.Type == cbv1.ConditionSucceeded)
		out = append(out, statusEvent{warning: failed || warningReasons[c.Reason], reason: c.Reason, action: c.Type, message: c.Message})
	}
	return out
}

// statusOf is the status of a kind this manager writes, and its conditions.
func statusOf(obj client.Object) (any, []metav1.Condition, error) {
	switch o := obj.(type) {
	case *cbv1.BenchmarkRun:
		return &o.Status, o.Status.Conditions, nil
	case *cbv1.BenchmarkSweep:
		return &o.Status, o.Status.Conditions, nil
	}
	return nil, nil, fmt.Errorf("writing status: %T is not a kind this manager writes", obj)
}

// writeStatus stores obj's status when it differs from read's, as a patch of the status
// subresource from read to obj, conditional on the version read: a pass that worked from a
// stale cache cannot overwrite a newer status, and the newer version's event brings the object
// back with fresh data. Once the status is stored it emits the events of the conditions that
// changed, then extra.
func writeStatus(ctx context.Context, c client.Client, rec events.EventRecorder, read, obj client.Object, extra ...statusEvent) error {
	before, beforeConds, err := statusOf(read)
	if err != nil {
		return err
	}
	after, afterConds, err := statusOf(obj)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(before, after) {
		return nil
	}
	base := read.DeepCopyObject().(client.Object)
	// The metadata is obj's: a finalizer patched earlier in the pass moved its version on.
	base.SetResourceVersion(obj.GetResourceVersion())
	err = c.Status().Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil
	case err != nil:
		return fmt.Errorf("writing status: %w", err)
	}
	for _, e := range append(conditionEvents(beforeConds, afterConds), extra...) {
		kind := corev1.EventTypeNormal
		if e.warning {
			kind = corev1.EventTypeWarning
		}
		rec.Eventf(obj, nil, kind, e.reason, e.action, "%s", e.message)
	}
	return nil
}

// setFinalizer adds or removes the manager's finalizer, when that changes anything, and keeps
// obj's finalizers and version as the patch left them. Removing it from an object already gone
// is done.
func setFinalizer(ctx context.Context, c client.Writer, obj client.Object, want bool) error {
	if controllerutil.ContainsFinalizer(obj, cbv1.Finalizer) == want {
		return nil
	}
	next := obj.DeepCopyObject().(client.Object)
	verb := "adding"
	if want {
		controllerutil.AddFinalizer(next, cbv1.Finalizer)
	} else {
		verb = "removing"
		controllerutil.RemoveFinalizer(next, cbv1.Finalizer)
	}
	if err := c.Patch(ctx, next, client.MergeFrom(obj.DeepCopyObject().(client.Object))); err != nil {
		if !want && apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("%s finalizer: %w", verb, err)
	}
	obj.SetFinalizers(next.GetFinalizers())
	obj.SetResourceVersion(next.GetResourceVersion())
	return nil
}
