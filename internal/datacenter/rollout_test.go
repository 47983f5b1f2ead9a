package datacenter

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nodePod is a Cassandra pod as cass-operator's StatefulSet makes it: the config init
// container carries the rendered config (with the cluster-info and datacenter-info sections the
// operator adds).
func nodePod(name, rendered string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.InitContainers = []corev1.Container{
		{Name: "server-config-init-base"},
		{Name: "server-config-init", Env: []corev1.EnvVar{{Name: "POD_IP", Value: "10.0.0.1"}, {Name: configEnv, Value: rendered}}},
	}
	p.Spec.Containers = []corev1.Container{{Name: "cassandra"}}
	return p
}

func TestStaleConfigPods(t *testing.T) {
	want := json.RawMessage(`{"cassandra-yaml":{"concurrent_writes":64,"num_tokens":16},"jvm-server-options":{"max_heap_size":"1G"}}`)
	applied := `{"cluster-info":{"name":"c1","seeds":"c1-seed-service"},"datacenter-info":{"name":"dc1"},` +
		`"cassandra-yaml":{"concurrent_writes":64,"num_tokens":16,"cdc_enabled":false},"jvm-server-options":{"max_heap_size":"1G"}}`
	earlier := `{"cluster-info":{"name":"c1"},"cassandra-yaml":{"concurrent_writes":32,"num_tokens":16},"jvm-server-options":{"max_heap_size":"1G"}}`
	deleting := nodePod("sts-2", earlier)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	fromSecret := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sts-3"}, Spec: corev1.PodSpec{InitContainers: []corev1.Container{{
		Name: "server-config-init", Env: []corev1.EnvVar{{Name: configEnv, ValueFrom: &corev1.EnvVarSource{}}}}}}}
	cases := map[string]struct {
		pods []corev1.Pod
		want json.RawMessage
		out  []string
	}{
		"every pod rolled out": {pods: []corev1.Pod{nodePod("sts-0", applied), nodePod("sts-1", applied)}, want: want},
		"a pod of the earlier revision": {pods: []corev1.Pod{nodePod("sts-1", earlier), nodePod("sts-0", applied)}, want: want,
			out: []string{"sts-1 (its config has cassandra-yaml.concurrent_writes 32, the datacenter's spec sets 64)"}},
		"a section the pod lacks": {pods: []corev1.Pod{nodePod("sts-0", `{"cassandra-yaml":{"concurrent_writes":64,"num_tokens":16}}`)}, want: want,
			out: []string{"sts-0 (its config has no jvm-server-options.max_heap_size, the datacenter's spec sets \"1G\")"}},
		"pods being deleted and configs from a Secret are not judged": {pods: []corev1.Pod{deleting, fromSecret}, want: want},
		"no config written":     {pods: []corev1.Pod{nodePod("sts-0", earlier)}, want: nil},
		"unreadable pod config": {pods: []corev1.Pod{nodePod("sts-0", `{not json`)}, want: want},
		"key order and spacing": {pods: []corev1.Pod{nodePod("sts-0", `{"jvm-server-options":{"max_heap_size":"1G"},"cassandra-yaml":{"num_tokens":16, "concurrent_writes":64}}`)}, want: want},
		"a number as a float":   {pods: []corev1.Pod{nodePod("sts-0", `{"cassandra-yaml":{"concurrent_writes":64.0,"num_tokens":16},"jvm-server-options":{"max_heap_size":"1G"}}`)}, want: want},
		"a string for a number": {pods: []corev1.Pod{nodePod("sts-0", `{"cassandra-yaml":{"concurrent_writes":"64","num_tokens":16},"jvm-server-options":{"max_heap_size":"1G"}}`)}, want: want, out: []string{`sts-0 (its config has cassandra-yaml.concurrent_writes "64", the datacenter's spec sets 64)`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.out, StaleConfigPods(tc.pods, tc.want)); diff != "" {
				t.Errorf("StaleConfigPods (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdateHeld(t *testing.T) {
	stale := []string{"sts-0 (its config has cassandra-yaml.concurrent_writes 32, the datacenter's spec sets 64)"}
	cases := map[string]struct {
		dc    *cassdcapi.CassandraDatacenter
		wrote int64
		stale []string
		held  bool
	}{
		// The race: observedGeneration moved to the run's generation, every condition says
		// ready, and the pods still run the earlier config.
		"ready by its status, stale pods":      {dc: dcWith(), wrote: 4, stale: stale, held: true},
		"RequiresUpdate after the race":        {dc: dcWith(cond(cassdcapi.DatacenterRequiresUpdate, corev1.ConditionTrue)), wrote: 4, held: true},
		"ready and rolled out":                 {dc: dcWith(), wrote: 4},
		"generation not observed yet":          {dc: dcWith(cond(cassdcapi.DatacenterRequiresUpdate, corev1.ConditionTrue)), wrote: 5, stale: stale},
		"rolling out: stale pods are expected": {dc: dcWith(cond(cassdcapi.DatacenterUpdating, corev1.ConditionTrue)), wrote: 4, stale: stale},
		"annotation already set": {dc: dcWith(cond(cassdcapi.DatacenterRequiresUpdate, corev1.ConditionTrue), func(dc *cassdcapi.CassandraDatacenter) {
			dc.Annotations = map[string]string{cassdcapi.UpdateAllowedAnnotation: "once"}
		}), wrote: 4},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := UpdateHeld(tc.dc, tc.wrote, tc.stale); got != tc.held {
				t.Errorf("UpdateHeld = %v, want %v", got, tc.held)
			}
		})
	}
}
