package datacenter

import (
	"fmt"
	"sort"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
)

// busyConditions are cass-operator conditions that mean the datacenter is changing. Ready
// stays True through all of them, so Ready alone never means "done".
var busyConditions = []cassdcapi.DatacenterConditionType{
	cassdcapi.DatacenterUpdating,
	cassdcapi.DatacenterScalingUp,
	cassdcapi.DatacenterScalingDown,
	cassdcapi.DatacenterRollingRestart,
	cassdcapi.DatacenterRequiresUpdate,
	cassdcapi.DatacenterReplacingNodes,
	cassdcapi.DatacenterResuming,
	cassdcapi.DatacenterResizingVolumes,
}

// Ready tells whether cass-operator has applied the datacenter spec at generation `wrote` (or
// later) and settled. When it has not, the reason names what is still pending.
func Ready(dc *cassdcapi.CassandraDatacenter, wrote int64) (bool, string) {
	var pending []string
	if dc.Status.ObservedGeneration < wrote {
		pending = append(pending, fmt.Sprintf("cass-operator has observed generation %d of %d", dc.Status.ObservedGeneration, wrote))
	}
	if dc.Status.CassandraOperatorProgress != cassdcapi.ProgressReady {
		progress := string(dc.Status.CassandraOperatorProgress)
		if progress == "" {
			progress = "not reported"
		}
		pending = append(pending, "cassandraOperatorProgress is "+progress)
	}
	if c, ok := dc.GetCondition(cassdcapi.DatacenterReady); !ok {
		pending = append(pending, "condition Ready is not reported")
	} else if c.Status != corev1.ConditionTrue {
		pending = append(pending, "condition Ready is "+string(c.Status))
	}
	var busy []string
	for _, t := range busyConditions {
		if dc.GetConditionStatus(t) == corev1.ConditionTrue {
			busy = append(busy, string(t))
		}
	}
	sort.Strings(busy)
	if len(busy) > 0 {
		pending = append(pending, "conditions "+strings.Join(busy, ", ")+" are True")
	}
	if dc.GetConditionStatus(cassdcapi.DatacenterValid) == corev1.ConditionFalse {
		c, _ := dc.GetCondition(cassdcapi.DatacenterValid)
		pending = append(pending, "condition Valid is False: "+c.Message)
	}
	if len(pending) == 0 {
		return true, ""
	}
	return false, strings.Join(pending, "; ")
}

// Invalid tells whether cass-operator refused the datacenter's spec: waiting cannot help.
func Invalid(dc *cassdcapi.CassandraDatacenter) (bool, string) {
	if dc.GetConditionStatus(cassdcapi.DatacenterValid) != corev1.ConditionFalse {
		return false, ""
	}
	c, _ := dc.GetCondition(cassdcapi.DatacenterValid)
	return true, c.Message
}

// Resizing tells whether cass-operator refuses a size change right now.
func Resizing(dc *cassdcapi.CassandraDatacenter) bool {
	return dc.GetConditionStatus(cassdcapi.DatacenterScalingUp) == corev1.ConditionTrue ||
		dc.GetConditionStatus(cassdcapi.DatacenterScalingDown) == corev1.ConditionTrue
}

// Pending names what cass-operator reports still in progress: its busy conditions with their
// messages.
func Pending(dc *cassdcapi.CassandraDatacenter) string {
	var busy []string
	for _, t := range busyConditions {
		if c, ok := dc.GetCondition(t); ok && c.Status == corev1.ConditionTrue {
			s := string(t)
			if c.Message != "" {
				s += ": " + c.Message
			}
			busy = append(busy, s)
		}
	}
	sort.Strings(busy)
	if len(busy) == 0 {
		return "no condition reported"
	}
	return strings.Join(busy, "; ")
}

// PendingWithPods is Pending with the datacenter's pods that are not ready, which say why a
// scaling does not end (an unschedulable pod keeps a scale-up going for ever).
func PendingWithPods(dc *cassdcapi.CassandraDatacenter, notReady []string) string {
	pending := Pending(dc)
	if len(notReady) > 0 {
		pending += "; pods not ready: " + strings.Join(notReady, ", ")
	}
	return pending
}
