package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// patchStatus is the one status writer of both kinds: a patch of the status subresource from
// base (the object with the status as read) to obj (the same object with the new status),
// conditional on the version read, so a pass that worked from a stale cache cannot overwrite
// a newer status; the newer version's event brings the object back with fresh data. The caller
// writes only when the status changed. It tells whether the status was stored.
func patchStatus(ctx context.Context, c client.Client, obj, base client.Object) (bool, error) {
	// The metadata is obj's: a finalizer patched earlier in the pass moved its version on.
	base.SetResourceVersion(obj.GetResourceVersion())
	err := c.Status().Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("writing status: %w", err)
	}
	return true, nil
}
