package kube

import (
	"context"
	"fmt"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SetDatacenterStatus plays cass-operator: it reads the datacenter afresh into dc, applies
// mutate to its status and writes the status subresource with a merge patch, as cass-operator
// v1.31 does. Reading first means mutate sees the generation the run's patch produced.
func SetDatacenterStatus(ctx context.Context, c client.Client, dc *cassdcapi.CassandraDatacenter,
	mutate func(*cassdcapi.CassandraDatacenterStatus)) error {
	if err := c.Get(ctx, client.ObjectKeyFromObject(dc), dc); err != nil {
		return fmt.Errorf("reading datacenter %s/%s: %w", dc.Namespace, dc.Name, err)
	}
	base := dc.DeepCopy()
	mutate(&dc.Status)
	if err := c.Status().Patch(ctx, dc, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("writing status of datacenter %s/%s: %w", dc.Namespace, dc.Name, err)
	}
	return nil
}

// MarkDatacenterReady returns a status change that makes dc look as cass-operator leaves it
// after a finished reconcile: the current generation observed, progress Ready, Ready and Valid
// True, no update, scaling or restart in progress. Use with SetDatacenterStatus; the generation
// is read when the change is applied, not when it is made.
func MarkDatacenterReady(dc *cassdcapi.CassandraDatacenter) func(*cassdcapi.CassandraDatacenterStatus) {
	return func(s *cassdcapi.CassandraDatacenterStatus) {
		s.ObservedGeneration = dc.Generation
		s.CassandraOperatorProgress = cassdcapi.ProgressReady
		if s.MetadataVersion < 1 {
			s.MetadataVersion = 1
		}
		if s.DatacenterName == nil {
			name := dc.Name
			s.DatacenterName = &name
		}
		SettleConditions(s)
	}
}

// MarkDatacenterUpdating returns a status change that makes dc look as cass-operator shows a
// config change rolling through the pods: progress Updating, Updating and RollingRestart True,
// while Ready stays True and observedGeneration stays behind (cass-operator records it only
// when a reconcile finishes). Ready alone therefore never means the change has landed.
func MarkDatacenterUpdating(dc *cassdcapi.CassandraDatacenter) func(*cassdcapi.CassandraDatacenterStatus) {
	return func(s *cassdcapi.CassandraDatacenterStatus) {
		s.CassandraOperatorProgress = cassdcapi.ProgressUpdating
		SetDatacenterCondition(s, cassdcapi.DatacenterReady, corev1.ConditionTrue, "")
		SetDatacenterCondition(s, cassdcapi.DatacenterUpdating, corev1.ConditionTrue, "")
		SetDatacenterCondition(s, cassdcapi.DatacenterRollingRestart, corev1.ConditionTrue, "")
	}
}

// SetDatacenterCondition sets one condition the way cass-operator does: the transition time
// moves only when the status changes, and reason and message are usually empty.
func SetDatacenterCondition(s *cassdcapi.CassandraDatacenterStatus, condition cassdcapi.DatacenterConditionType,
	status corev1.ConditionStatus, reason string) {
	if s.GetConditionStatus(condition) == status {
		for i := range s.Conditions {
			if s.Conditions[i].Type == condition {
				s.Conditions[i].Reason = reason
			}
		}
		return
	}
	s.SetCondition(cassdcapi.DatacenterCondition{
		Type:               condition,
		Status:             status,
		Reason:             reason,
		LastTransitionTime: metav1.Now(),
	})
}

// SettleConditions sets the conditions as cass-operator leaves them after a finished
// reconcile: Initialized, Ready, Valid and Healthy True, every update, scaling and restart
// condition False. cass-operator keeps conditions in the order it first set them; a fixed
// order here keeps the status, and any diff of it, stable between runs.
func SettleConditions(s *cassdcapi.CassandraDatacenterStatus) {
	for _, c := range []struct {
		condition cassdcapi.DatacenterConditionType
		status    corev1.ConditionStatus
	}{
		{cassdcapi.DatacenterInitialized, corev1.ConditionTrue},
		{cassdcapi.DatacenterReady, corev1.ConditionTrue},
		{cassdcapi.DatacenterValid, corev1.ConditionTrue},
		{cassdcapi.DatacenterHealthy, corev1.ConditionTrue},
		{cassdcapi.DatacenterStopped, corev1.ConditionFalse},
		{cassdcapi.DatacenterUpdating, corev1.ConditionFalse},
		{cassdcapi.DatacenterRollingRestart, corev1.ConditionFalse},
		{cassdcapi.DatacenterScalingUp, corev1.ConditionFalse},
		{cassdcapi.DatacenterScalingDown, corev1.ConditionFalse},
		{cassdcapi.DatacenterRequiresUpdate, corev1.ConditionFalse},
		{cassdcapi.DatacenterReplacingNodes, corev1.ConditionFalse},
		{cassdcapi.DatacenterResizingVolumes, corev1.ConditionFalse},
	} {
		SetDatacenterCondition(s, c.condition, c.status, "")
	}
}
