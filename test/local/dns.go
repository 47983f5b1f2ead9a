package local

import (
	"context"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// clusterHosts plays cluster DNS as the /etc/hosts entries a pod gets: every service's names
// (<svc>.<ns>.svc and .cluster.local) resolve to the addresses of the ready pods its selector
// matches (all of them when the service publishes not-ready addresses), as a headless service
// resolves, and a pod whose subdomain is the service to its own address under its hostname
// (<hostname>.<svc>.<ns>.svc), as a StatefulSet pod's name resolves.
//
// It reads pods, not the EndpointSlices kube-controller-manager would write: the played pods'
// addresses are in 127.0.0.0/8, which the apiserver refuses in an EndpointSlice.
func clusterHosts(c client.Client) []HostAlias {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var services corev1.ServiceList
	var pods corev1.PodList
	if c.List(ctx, &services) != nil || c.List(ctx, &pods) != nil {
		return nil
	}
	names := map[string]map[string]bool{}
	add := func(ip, name string) {
		if names[ip] == nil {
			names[ip] = map[string]bool{}
		}
		names[ip][name] = true
		names[ip][name+".cluster.local"] = true
	}
	for _, svc := range services.Items {
		if len(svc.Spec.Selector) == 0 {
			continue // its endpoints are whatever its owner writes; none here
		}
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		domain := svc.Name + "." + svc.Namespace + ".svc"
		for i := range pods.Items {
			pod := &pods.Items[i]
			ip := pod.Status.PodIP
			if pod.Namespace != svc.Namespace || ip == "" || pod.DeletionTimestamp != nil || !sel.Matches(labels.Set(pod.Labels)) {
				continue
			}
			if !podReady(pod) && !svc.Spec.PublishNotReadyAddresses {
				continue
			}
			add(ip, domain)
			if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name {
				add(ip, pod.Spec.Hostname+"."+domain)
			}
		}
	}
	out := make([]HostAlias, 0, len(names))
	for ip, set := range names {
		out = append(out, HostAlias{IP: ip, Hostnames: sortedKeys(set)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].IP < out[j].IP })
	return out
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
