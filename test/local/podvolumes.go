package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writeVolume writes the files of a Secret, ConfigMap or projected volume into dir, as the
// kubelet's volume plugins do: a key per file (or the items asked for), and for a projected
// service-account volume a token the apiserver issued for the pod's service account, bound to
// the pod, the cluster's CA certificate and the pod's namespace.
func (r *PodRunner) writeVolume(ctx context.Context, pod *corev1.Pod, v corev1.Volume, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	switch {
	case v.Secret != nil:
		data, err := r.secretData(ctx, pod.Namespace, v.Secret.SecretName)
		if err != nil {
			return err
		}
		return writeKeys(dir, data, v.Secret.Items)
	case v.ConfigMap != nil:
		data, err := r.configMapData(ctx, pod.Namespace, v.ConfigMap.Name)
		if err != nil {
			return err
		}
		return writeKeys(dir, data, v.ConfigMap.Items)
	case v.Projected != nil:
		for _, src := range v.Projected.Sources {
			if err := r.writeProjection(ctx, pod, src, dir); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("the local pod runner mounts emptyDir, secret, configMap and projected volumes only")
}

func (r *PodRunner) writeProjection(ctx context.Context, pod *corev1.Pod, src corev1.VolumeProjection, dir string) error {
	switch {
	case src.ServiceAccountToken != nil:
		token, err := r.token(ctx, pod, src.ServiceAccountToken)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, src.ServiceAccountToken.Path), []byte(token), 0o644)
	case src.ConfigMap != nil && src.ConfigMap.Name == "kube-root-ca.crt":
		// What kube-controller-manager's root-ca publisher puts in every namespace.
		return writeKeys(dir, map[string][]byte{"ca.crt": r.CACert}, src.ConfigMap.Items)
	case src.ConfigMap != nil:
		data, err := r.configMapData(ctx, pod.Namespace, src.ConfigMap.Name)
		if err != nil {
			return err
		}
		return writeKeys(dir, data, src.ConfigMap.Items)
	case src.Secret != nil:
		data, err := r.secretData(ctx, pod.Namespace, src.Secret.Name)
		if err != nil {
			return err
		}
		return writeKeys(dir, data, src.Secret.Items)
	case src.DownwardAPI != nil:
		for _, item := range src.DownwardAPI.Items {
			if item.FieldRef == nil {
				return fmt.Errorf("downward API item %s: only fieldRef is supported", item.Path)
			}
			value, err := podField(pod, item.FieldRef.FieldPath)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, item.Path), []byte(value), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("a projected source the local pod runner does not write")
}

// token asks the apiserver for a token of the pod's service account, bound to the pod, as the
// kubelet does for a projected serviceAccountToken source.
func (r *PodRunner) token(ctx context.Context, pod *corev1.Pod, src *corev1.ServiceAccountTokenProjection) (string, error) {
	expiry := int64(24 * 3600) // the kubelet refreshes it; a test's pod lives far less
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: &expiry,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	if src.Audience != "" {
		tr.Spec.Audiences = []string{src.Audience}
	}
	sa := &corev1.ServiceAccount{}
	sa.Name, sa.Namespace = pod.Spec.ServiceAccountName, pod.Namespace
	if sa.Name == "" {
		sa.Name = "default"
	}
	if err := r.Client.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", fmt.Errorf("requesting a token for service account %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return tr.Status.Token, nil
}

func (r *PodRunner) secretData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	s := &corev1.Secret{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, s); err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return s.Data, nil
}

func (r *PodRunner) configMapData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	cm := &corev1.ConfigMap{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
		return nil, fmt.Errorf("configmap %s: %w", name, err)
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return data, nil
}

// writeKeys writes every key as a file, or only the items asked for, at their paths.
func writeKeys(dir string, data map[string][]byte, items []corev1.KeyToPath) error {
	if len(items) == 0 {
		for k := range data {
			items = append(items, corev1.KeyToPath{Key: k, Path: k})
		}
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			return fmt.Errorf("key %s is missing", it.Key)
		}
		path := filepath.Join(dir, it.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, v, 0o644); err != nil {
			return err
		}
	}
	return nil
}
