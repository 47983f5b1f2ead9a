package local

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestContainerEnv(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: "run-writer-1-abcde", Namespace: "bench",
		Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "1"},
		Labels:      map[string]string{"app": "cassbench"},
	}}
	secrets := map[string]string{"cluster1-superuser/username": "cassandra", "cluster1-superuser/password": "secret"}
	lookup := func(kind, name, key string) (string, bool, error) {
		v, ok := secrets[name+"/"+key]
		return v, ok && kind == "secret", nil
	}
	secret := func(name, key string, optional bool) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: &optional,
		}}
	}
	field := func(path string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}
	}
	cases := map[string]struct {
		env     []corev1.EnvVar
		want    []string
		wantErr bool
	}{
		"values, secrets and the completion index the Job controller injects": {
			env: []corev1.EnvVar{
				{Name: "CASSBENCH_HOSTS", Value: "cluster1-dc1-service.bench.svc"},
				{Name: "CASSBENCH_USERNAME", ValueFrom: secret("cluster1-superuser", "username", false)},
				{Name: "CASSBENCH_PASSWORD", ValueFrom: secret("cluster1-superuser", "password", false)},
				{Name: "JOB_COMPLETION_INDEX", ValueFrom: field("metadata.annotations['batch.kubernetes.io/job-completion-index']")},
				{Name: "POD", ValueFrom: field("metadata.name")},
				{Name: "APP", ValueFrom: field("metadata.labels['app']")},
			},
			want: []string{
				"CASSBENCH_HOSTS=cluster1-dc1-service.bench.svc", "CASSBENCH_USERNAME=cassandra", "CASSBENCH_PASSWORD=secret",
				"JOB_COMPLETION_INDEX=1", "POD=run-writer-1-abcde", "APP=cassbench",
			},
		},
		"references expand to earlier variables only": {
			env: []corev1.EnvVar{
				{Name: "A", Value: "a"},
				{Name: "B", Value: "$(A)-$(C)-$$(A)"},
				{Name: "C", Value: "c"},
			},
			want: []string{"A=a", "B=a-$(C)-$(A)", "C=c"},
		},
		"a missing optional secret leaves the variable unset": {
			env:  []corev1.EnvVar{{Name: "X", ValueFrom: secret("nope", "k", true)}},
			want: []string{},
		},
		"a missing secret is a configuration error": {
			env:     []corev1.EnvVar{{Name: "X", ValueFrom: secret("nope", "k", false)}},
			wantErr: true,
		},
		"an unsupported field path": {
			env:     []corev1.EnvVar{{Name: "X", ValueFrom: field("spec.unknown")}},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := containerEnv(pod, &corev1.Container{Env: tc.env}, lookup)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandArgs(t *testing.T) {
	got := expandArgs([]string{"/cassbench", "writer", "--index=$(JOB_COMPLETION_INDEX)", "$(UNSET)"}, []string{"JOB_COMPLETION_INDEX=2"})
	want := []string{"/cassbench", "writer", "--index=2", "$(UNSET)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}
