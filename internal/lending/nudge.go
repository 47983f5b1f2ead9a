package lending

import (
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// NudgeInterval is how often a holder waiting for cass-operator to apply its change asks it
// to look again (cbv1.ReconcileRequestedAnnotation): often enough that a roll of a one-node
// datacenter goes on within half a minute of its pod being ready to start, rarely enough to
// add nothing to the apiserver's load.
const NudgeInterval = 30 * time.Second

// Nudge is the value to set cbv1.ReconcileRequestedAnnotation to while a holder waits for
// the datacenter, which it began to do at since: nil until every has passed since then or
// since the last nudge; next is when the next one is due. Waiting one interval before the
// first nudge leaves a datacenter that settles at once (most do) unwritten. every 0 turns
// nudging off.
func Nudge(dc *cassdcapi.CassandraDatacenter, since, now time.Time, every time.Duration) (value *string, next time.Duration) {
	if every <= 0 {
		return nil, 0
	}
	last := since
	if t, err := time.Parse(time.RFC3339, dc.Annotations[cbv1.ReconcileRequestedAnnotation]); err == nil {
		last = t
	}
	if due := last.Add(every); now.Before(due) {
		return nil, due.Sub(now)
	}
	return ptr.To(now.UTC().Format(time.RFC3339)), every
}

// unnudge removes the annotation a holder's nudges left on the datacenter; nil when there is
// none.
func unnudge(dc *cassdcapi.CassandraDatacenter) *string {
	if _, ok := dc.Annotations[cbv1.ReconcileRequestedAnnotation]; ok {
		return ptr.To("")
	}
	return nil
}
