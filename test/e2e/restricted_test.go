//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// The kind-demo sample run from a namespace that enforces the restricted Pod Security
// Standard, as a cluster administrator would set up a namespace for benchmarks: its setup and
// writer pods are admitted by the real API server's Pod Security admission and run under the
// real kubelet, and it Succeeds with every writer's results. The datacenter stays where
// cass-operator's pods are admitted (its pods are not restricted), and lends itself to the
// namespace through its allow-benchmarks annotation, put back after the test.
func TestKindDemoRunSucceedsInARestrictedNamespace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	k := connect(t)
	ns := k.restrictedNamespace(ctx, t)
	k.allowBenchmarksFrom(ctx, t, client.ObjectKey{Namespace: namespace, Name: "dc1"}, ns)

	// A datacenter's superuser secret is not read across namespaces: as the run's message says
	// to, the user gives the run credentials of its own namespace.
	secret := k.copySecret(ctx, t, client.ObjectKey{Namespace: namespace, Name: "demo-superuser"}, ns)
	run := k.sampleRun(t, func(r *cbv1.BenchmarkRun) {
		r.Namespace = ns
		r.Spec.DatacenterRef.Namespace = namespace
		r.Spec.Connection = &cbv1.ConnectionSpec{CredentialsSecretRef: &corev1.LocalObjectReference{Name: secret}}
	})
	before := k.start(ctx, t, run)
	done := k.waitFinished(ctx, t, run, nil)
	succeeded(t, done)
	r := done.Status.Results
	if r == nil || r.Operations <= 0 || r.WritersReported != run.Spec.Writers.Replicas {
		t.Fatalf("results %+v, want operations from all %d writers", r, run.Spec.Writers.Replicas)
	}
	t.Logf("results: %d operations, %d ops/s, %d writers", r.Operations, r.OpsPerSecond, r.WritersReported)
	k.checkRestored(ctx, t, done, before)
}

// restrictedNamespace creates a fresh namespace that enforces the restricted Pod Security
// Standard at the latest version, deleted after the test, and shows that the API server
// enforces it there: a pod that restricted forbids (no securityContext at all) is refused.
func (k *cluster) restrictedNamespace(ctx context.Context, t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "cassbench-restricted-" + utilrand.String(5),
		Labels: map[string]string{
			"pod-security.kubernetes.io/enforce":         "restricted",
			"pod-security.kubernetes.io/enforce-version": "latest",
		},
	}}
	if err := k.c.Create(ctx, ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() { _ = k.c.Delete(context.Background(), ns) })

	unrestricted := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "unrestricted", Namespace: ns.Name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "cassbench:dev"}}},
	}
	err := k.c.Create(ctx, unrestricted, client.DryRunAll)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("namespace %s admitted a pod without a securityContext (err %v): Pod Security admission does not enforce restricted there", ns.Name, err)
	}
	t.Logf("namespace %s enforces restricted: %v", ns.Name, err)
	return ns.Name
}

// allowBenchmarksFrom lets runs from ns (besides the datacenter's own namespace) take the
// datacenter, and puts its allow-benchmarks annotation back after the test.
func (k *cluster) allowBenchmarksFrom(ctx context.Context, t *testing.T, key client.ObjectKey, ns string) {
	t.Helper()
	dc := &cassdcapi.CassandraDatacenter{}
	if err := k.c.Get(ctx, key, dc); err != nil {
		t.Fatalf("datacenter %s (run make kind-up): %v", key, err)
	}
	was, had := dc.Annotations[cbv1.AllowBenchmarksAnnotation]
	setAnnotation := func(ctx context.Context, value *string) error {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"annotations": map[string]*string{cbv1.AllowBenchmarksAnnotation: value}}})
		if err != nil {
			return err
		}
		return k.c.Patch(ctx, dc, client.RawPatch(types.MergePatchType, patch))
	}
	allowed := key.Namespace + "," + ns
	if err := setAnnotation(ctx, &allowed); err != nil {
		t.Fatalf("annotating datacenter %s: %v", key, err)
	}
	t.Cleanup(func() {
		var value *string // deletes the annotation the datacenter did not have
		if had {
			value = &was
		}
		if err := setAnnotation(context.Background(), value); err != nil {
			t.Errorf("putting back the annotation %s of datacenter %s: %v", cbv1.AllowBenchmarksAnnotation, key, err)
		}
	})
}

// copySecret copies the username and password of the secret at from into namespace ns, under
// the same name, and returns the name (deleted with the namespace).
func (k *cluster) copySecret(ctx context.Context, t *testing.T, from client.ObjectKey, ns string) string {
	t.Helper()
	src := &corev1.Secret{}
	if err := k.c.Get(ctx, from, src); err != nil {
		t.Fatalf("reading secret %s (cass-operator's superuser secret of dc1): %v", from, err)
	}
	dst := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: from.Name, Namespace: ns},
		Data:       map[string][]byte{"username": src.Data["username"], "password": src.Data["password"]},
	}
	if err := k.c.Create(ctx, dst); err != nil {
		t.Fatalf("creating secret %s/%s: %v", ns, dst.Name, err)
	}
	return dst.Name
}
