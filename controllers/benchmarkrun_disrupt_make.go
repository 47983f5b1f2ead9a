package controllers

import (
	"context"
	"fmt"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload"
)

// opTimeout bounds one call to a node's management API: a major compaction of a large table
// takes longer, and then fails the disruption with the time it was given.
const opTimeout = 5 * time.Minute

// runTable is the keyspace and table the run writes, which Flush and Compact act on.
func runTable(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) (string, string) {
	name := ""
	if dc != nil {
		name = dc.DatacenterName()
	}
	s, err := workload.BuildSchema(&run.Spec, name)
	if err != nil {
		return "", ""
	}
	return s.Keyspace, s.Table
}

// makeDisruption makes a disruption recorded in an earlier pass. A pod is deleted only with
// the UID that was recorded; a call the node refuses ends the disruption with its message in
// status (the run goes on: its figures then leave that disruption out). Only a failure to
// reach the apiserver is returned, and the next pass tries again.
func (r *BenchmarkRunReconciler) makeDisruption(ctx context.Context, a *disruptAction, status *cbv1.BenchmarkRunStatus) error {
	if a.index >= len(status.Disruptions) {
		return nil
	}
	rec := &status.Disruptions[a.index]
	log := ctrl.LoggerFrom(ctx).WithValues("disruption", rec.Name, "pod", a.pod.Name)
	failed := func(what string, err error) {
		rec.Message = fmt.Sprintf("not made: %s: %v", what, err)
		rec.EndTime = &metav1.MicroTime{Time: r.Clock.Now()}
		log.Info("disruption failed", "error", err.Error())
	}
	callCtx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	switch a.kind {
	case cbv1.DisruptionFlush, cbv1.DisruptionCompact:
		call := r.NodeOps.Flush
		if a.kind == cbv1.DisruptionCompact {
			call = r.NodeOps.Compact
		}
		if a.table == "" {
			failed("the run's table", fmt.Errorf("spec.schema does not name one"))
			return nil
		}
		if err := call(callCtx, a.ip, a.space, a.table); err != nil {
			failed(string(a.kind)+" through the management API", err)
			return nil
		}
		rec.EndTime = &metav1.MicroTime{Time: r.Clock.Now()}
		log.Info("disruption made")
		return nil
	case cbv1.DisruptionDrain:
		if err := r.NodeOps.Drain(callCtx, a.ip); err != nil {
			failed("drain through the management API", err)
			return nil
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: a.pod.Namespace, Name: a.pod.Name}}
	err := r.Delete(ctx, pod, client.Preconditions{UID: &a.uid})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting pod %s for disruption %q: %w", a.pod, rec.Name, err)
	}
	log.Info("disruption made: pod deleted")
	return nil
}
