package local

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestClusterHosts: a service resolves to the ready pods its selector matches in its
// namespace (not-ready ones too when it publishes them), a pod to its hostname under its
// subdomain's service, and a service without a selector to nothing.
func TestClusterHosts(t *testing.T) {
	pod := func(ns, name, ip string, ready bool, hostname, subdomain string) *corev1.Pod {
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"dc": "dc1"}},
			Spec:       corev1.PodSpec{Hostname: hostname, Subdomain: subdomain},
			Status:     corev1.PodStatus{PodIP: ip, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
		}
	}
	svc := func(name string, selector map[string]string, publishNotReady bool) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec:       corev1.ServiceSpec{Selector: selector, PublishNotReadyAddresses: publishNotReady, ClusterIP: corev1.ClusterIPNone},
		}
	}
	c := fake.NewClientBuilder().WithObjects(
		svc("cluster1-dc1-service", map[string]string{"dc": "dc1"}, false),
		svc("cluster1-dc1-all-pods-service", map[string]string{"dc": "dc1"}, true),
		svc("cluster1-dc1-additional-seed-service", nil, false),
		pod("default", "sts-0", "127.0.0.1", true, "sts-0", "cluster1-dc1-all-pods-service"),
		pod("default", "sts-1", "127.0.0.2", false, "sts-1", "cluster1-dc1-all-pods-service"),
		pod("default", "pending", "", true, "", ""),
		pod("other", "elsewhere", "127.0.0.9", true, "", ""),
	).Build()
	names := func(n ...string) []string {
		var out []string
		for _, s := range n {
			out = append(out, s, s+".cluster.local")
		}
		return sortedKeys(setOf(out))
	}
	want := []HostAlias{
		{IP: "127.0.0.1", Hostnames: names("cluster1-dc1-service.default.svc", "cluster1-dc1-all-pods-service.default.svc", "sts-0.cluster1-dc1-all-pods-service.default.svc")},
		{IP: "127.0.0.2", Hostnames: names("cluster1-dc1-all-pods-service.default.svc", "sts-1.cluster1-dc1-all-pods-service.default.svc")},
	}
	if diff := cmp.Diff(want, clusterHosts(c)); diff != "" {
		t.Errorf("clusterHosts (-want +got):\n%s", diff)
	}
}

func setOf(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}
