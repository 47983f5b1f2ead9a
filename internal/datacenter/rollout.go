package datacenter

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
)

// configEnv is the variable cass-operator renders spec.config into, on the config init
// container of every Cassandra pod (getConfigDataEnVars in its
// pkg/reconciliation/construct_podtemplatespec.go, v1.31.0). A pod carries the config of the
// StatefulSet revision it was made from, so a pod whose variable lacks a value the datacenter's
// spec holds has not been rolled to that spec yet.
const configEnv = "CONFIG_FILE_DATA"

// StaleConfigPods names the datacenter's pods whose rendered config lacks a value of want (the
// spec.config the run wrote), with the first value that differs, in name order. Pods that are
// being deleted, and pods with no rendered config to read (a datacenter configured through
// spec.configSecret renders from a Secret), are not judged.
//
// cass-operator v1.31.0 can report a spec change applied that it never rolls out: a reconcile
// that read the datacenter before the change ends by writing status.observedGeneration from
// the object its own status patch returned, which already holds the new generation
// (setDatacenterStatus in pkg/reconciliation/constructor.go). Its next reconcile then finds
// the StatefulSet out of date but no longer allowed to update it, and sets RequiresUpdate.
// Between the two, the datacenter looks ready at the new generation by every condition; the
// pods say otherwise.
func StaleConfigPods(pods []corev1.Pod, want json.RawMessage) []string {
	var wantSections map[string]map[string]json.RawMessage
	if len(want) == 0 || json.Unmarshal(want, &wantSections) != nil {
		return nil
	}
	var out []string
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		rendered, ok := renderedConfig(p)
		if !ok {
			continue
		}
		if diff := firstMissing(wantSections, rendered); diff != "" {
			out = append(out, p.Name+" ("+diff+")")
		}
	}
	sort.Strings(out)
	return out
}

// renderedConfig is the pod's CONFIG_FILE_DATA, when it holds the config itself.
func renderedConfig(p corev1.Pod) (map[string]map[string]json.RawMessage, bool) {
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, e := range c.Env {
			if e.Name != configEnv || e.Value == "" {
				continue
			}
			var rendered map[string]map[string]json.RawMessage
			if json.Unmarshal([]byte(e.Value), &rendered) != nil {
				return nil, false
			}
			return rendered, true
		}
	}
	return nil, false
}

// firstMissing names the first setting of want, in section and key order, that rendered does
// not hold with the same value; "" when it holds them all.
func firstMissing(want, rendered map[string]map[string]json.RawMessage) string {
	sections := make([]string, 0, len(want))
	for s := range want {
		sections = append(sections, s)
	}
	sort.Strings(sections)
	for _, s := range sections {
		keys := make([]string, 0, len(want[s]))
		for k := range want[s] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			got, ok := rendered[s][k]
			if !ok {
				return fmt.Sprintf("its config has no %s.%s, the datacenter's spec sets %s", s, k, compact(want[s][k]))
			}
			if !SameJSON(got, want[s][k]) {
				return fmt.Sprintf("its config has %s.%s %s, the datacenter's spec sets %s", s, k, compact(got), compact(want[s][k]))
			}
		}
	}
	return ""
}

func compact(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// UpdateHeld tells whether cass-operator holds back the spec at generation `wrote` it reports
// as observed: RequiresUpdate is True, or the datacenter looks ready while stale pods remain.
// Setting the autoupdate-spec annotation to "once" lets it roll the StatefulSets out; it
// removes the annotation itself once a reconcile completes. A datacenter that already has the
// annotation is left as it is.
func UpdateHeld(dc *cassdcapi.CassandraDatacenter, wrote int64, stale []string) bool {
	if dc.Status.ObservedGeneration < wrote {
		return false
	}
	if _, ok := dc.Annotations[cassdcapi.UpdateAllowedAnnotation]; ok {
		return false
	}
	if dc.GetConditionStatus(cassdcapi.DatacenterRequiresUpdate) == corev1.ConditionTrue {
		return true
	}
	ready, _ := Ready(dc, wrote)
	return ready && len(stale) > 0
}
