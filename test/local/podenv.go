package local

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// lookupKey reads one key of a Secret or ConfigMap in the pod's namespace; found=false means
// the object or the key does not exist.
type lookupKey func(kind, name, key string) (value string, found bool, err error)

// containerEnv resolves a container's environment as the kubelet does: envFrom first, then env
// in order, each value expanding $(VAR) references to variables defined before it. A missing
// Secret, ConfigMap or key is an error unless the reference is optional, as the kubelet then
// reports CreateContainerConfigError.
func containerEnv(pod *corev1.Pod, c *corev1.Container, lookup lookupKey) ([]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(name, value string) {
		if _, ok := vars[name]; !ok {
			order = append(order, name)
		}
		vars[name] = value
	}
	for _, from := range c.EnvFrom {
		if from.SecretRef != nil || from.ConfigMapRef != nil {
			return nil, fmt.Errorf("envFrom is not supported by the local pod runner")
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expand(e.Value, vars))
			continue
		}
		v, ok, err := envValueFrom(pod, e.ValueFrom, lookup)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		if ok {
			set(e.Name, v)
		}
	}
	out := make([]string, 0, len(order))
	for _, name := range order {
		out = append(out, name+"="+vars[name])
	}
	return out, nil
}

// envValueFrom resolves one valueFrom; ok=false means an optional reference was not found and
// the variable is left unset.
func envValueFrom(pod *corev1.Pod, from *corev1.EnvVarSource, lookup lookupKey) (string, bool, error) {
	switch {
	case from.FieldRef != nil:
		v, err := podField(pod, from.FieldRef.FieldPath)
		return v, err == nil, err
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		return keyRef("secret", ref.Name, ref.Key, ref.Optional, lookup)
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		return keyRef("configmap", ref.Name, ref.Key, ref.Optional, lookup)
	default:
		return "", false, fmt.Errorf("this valueFrom is not supported by the local pod runner")
	}
}

func keyRef(kind, name, key string, optional *bool, lookup lookupKey) (string, bool, error) {
	v, found, err := lookup(kind, name, key)
	if err != nil {
		return "", false, err
	}
	if !found {
		if optional != nil && *optional {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s %q or its key %q not found", kind, name, key)
	}
	return v, true, nil
}

var (
	subscripted = regexp.MustCompile(`^metadata\.(labels|annotations)\['([^']+)'\]$`)
	reference   = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)
)

// podField resolves a downward-API field path, as the kubelet does for env.
func podField(pod *corev1.Pod, path string) (string, error) {
	if m := subscripted.FindStringSubmatch(path); m != nil {
		if m[1] == "labels" {
			return pod.Labels[m[2]], nil
		}
		return pod.Annotations[m[2]], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.podIP", "status.hostIPs", "status.podIPs":
		// A node pod has its own loopback address; every other pod shares the host's.
		if pod.Status.PodIP != "" {
			return pod.Status.PodIP, nil
		}
		return podIP, nil
	}
	return "", fmt.Errorf("field path %q is not supported by the local pod runner", path)
}

// expand replaces $(VAR) with variables defined so far; $$ escapes a dollar, and a reference
// to an unknown variable stays as it is, as in Kubernetes.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return reference.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		name := m[2 : len(m)-1]
		if v, ok := vars[name]; ok {
			return v
		}
		return m
	})
}

// expandArgs expands $(VAR) in a command or its arguments with the container's environment.
func expandArgs(args []string, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = expand(a, vars)
	}
	return out
}

// podIP is every local pod's address: pods share the host's loopback network.
const podIP = "127.0.0.1"
