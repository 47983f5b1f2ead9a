package controllers

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// resultConditions are the conditions a finished run's results set: TargetRateReached and
// ReplicationKeptUp.
func resultConditions(res *cbv1.Results) stageResult {
	r := targetRate(res)
	r.merge(replicationKeptUp(res))
	return r
}

// replicationKeptUp is ConditionReplicationKeptUp of a finished run with observers: False
// when sampled inserts were not readable in the observed datacenter within the limit, so that
// a run against an unreachable or lagging datacenter says so where `kubectl wait` and
// dashboards look, not only in its figures. Nothing when no observer reported.
func replicationKeptUp(res *cbv1.Results) stageResult {
	var r stageResult
	if res == nil || res.ReplicationLag == nil {
		return r
	}
	l := res.ReplicationLag
	limit := time.Duration(l.LimitMillis) * time.Millisecond
	if l.Censored > 0 {
		r.set(cbv1.ConditionReplicationKeptUp, metav1.ConditionFalse, cbv1.ReasonKeysNotSeen, fmt.Sprintf(
			"%d of %d sampled inserts were not readable in %s within %s (replicationLag.limit): %s was unreachable (its writes "+
				"then wait as hints in the writers' datacenter) or that far behind; see status.results.replicationLag",
			l.Censored, l.Seen+l.Censored, l.ObservedDatacenter, limit, l.ObservedDatacenter))
		return r
	}
	msg := fmt.Sprintf("all %d sampled inserts were readable in %s within %s", l.Seen, l.ObservedDatacenter, limit)
	if l.Lag != nil {
		msg += fmt.Sprintf(", the slowest after %s", time.Duration(l.Lag.Max)*time.Microsecond)
	}
	r.set(cbv1.ConditionReplicationKeptUp, metav1.ConditionTrue, cbv1.ReasonKeysSeen, msg)
	return r
}
