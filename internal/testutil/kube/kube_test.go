package kube_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

var env *kube.Env

func TestMain(m *testing.M) {
	kube.Main(m, func(e *kube.Env) error { env = e; return nil })
}

func TestObjectsRoundTrip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)

	dc := builders.MakeDatacenter("dc1", ns).Cluster("c1").Size(3).
		Config(`{"cassandra-yaml":{"num_tokens":16},"jvm-server-options":{"max_heap_size":"1G"}}`).
		AllowBenchmarks("true").Obj()
	if err := env.Client.Create(ctx, dc); err != nil {
		t.Fatalf("creating datacenter: %v", err)
	}
	gotDC := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dc), gotDC); err != nil {
		t.Fatalf("reading datacenter: %v", err)
	}
	if gotDC.Spec.ClusterName != "c1" || gotDC.Spec.Size != 3 ||
		gotDC.Annotations[cbv1.AllowBenchmarksAnnotation] != "true" {
		t.Errorf("datacenter read back as cluster %q size %d annotations %v",
			gotDC.Spec.ClusterName, gotDC.Spec.Size, gotDC.Annotations)
	}
	assertSameJSON(t, "datacenter spec.config", string(gotDC.Spec.Config),
		`{"cassandra-yaml":{"num_tokens":16},"jvm-server-options":{"max_heap_size":"1G"}}`)

	yamlSettings := map[string]any{
		"concurrent_writes":     64,
		"compaction_throughput": "48MiB/s",
		"memtable":              map[string]any{"configurations": map[string]any{"default": map[string]any{"inherits": "trie"}}},
	}
	run := builders.MakeBenchmarkRun("run", ns).Datacenter("dc1").Size(5).
		CassandraYaml(yamlSettings).
		JvmOptions(map[string]any{"max_heap_size": "8G", "additional-jvm-opts": []any{"-Xmn1G"}}).
		Writers(3).Concurrency(8).Rate(1000).Duration(20 * time.Second).Warmup(5 * time.Second).
		Keyspace("ks").Profile(cbv1.ProfileIPByCity).KeepChanges().Obj()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatalf("creating run: %v", err)
	}
	got := &cbv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatalf("reading run: %v", err)
	}
	if diff := cmp.Diff(run.Spec.Writers.Replicas, got.Spec.Writers.Replicas); diff != "" {
		t.Errorf("writers.replicas (-want +got):\n%s", diff)
	}
	if got.Spec.Datacenter == nil || got.Spec.Datacenter.Size == nil || *got.Spec.Datacenter.Size != 5 ||
		!got.Spec.Datacenter.KeepChanges {
		t.Fatalf("spec.datacenter read back as %+v", got.Spec.Datacenter)
	}
	want, _ := json.Marshal(yamlSettings)
	assertSameJSON(t, "spec.datacenter.config.cassandra-yaml",
		string(got.Spec.Datacenter.Config.CassandraYaml.Raw), string(want))
	assertSameJSON(t, "spec.datacenter.config.jvm-server-options",
		string(got.Spec.Datacenter.Config.JvmServerOptions.Raw),
		`{"max_heap_size":"8G","additional-jvm-opts":["-Xmn1G"]}`)
	if got.Spec.Schema.Keyspace != "ks" || got.Spec.Schema.Table.Profile != cbv1.ProfileIPByCity ||
		*got.Spec.Writers.Rate != 1000 || got.Spec.Writers.Duration.Duration != 20*time.Second {
		t.Errorf("spec read back as %+v", got.Spec)
	}
}

func TestDatacenterStatusLikeCassOperator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	dc := builders.MakeDatacenter("dc1", ns).Obj()
	if err := env.Client.Create(ctx, dc); err != nil {
		t.Fatalf("creating datacenter: %v", err)
	}

	if err := kube.SetDatacenterStatus(ctx, env.Client, dc, kube.MarkDatacenterReady(dc)); err != nil {
		t.Fatal(err)
	}
	got := &cassdcapi.CassandraDatacenter{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dc), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != got.Generation || got.Status.CassandraOperatorProgress != cassdcapi.ProgressReady ||
		got.GetConditionStatus(cassdcapi.DatacenterReady) != corev1.ConditionTrue ||
		got.GetConditionStatus(cassdcapi.DatacenterUpdating) != corev1.ConditionFalse {
		t.Errorf("ready status read back as %+v", got.Status)
	}
	readySince, _ := got.GetCondition(cassdcapi.DatacenterReady)

	// A spec change bumps the generation; cass-operator reports Updating before observing it.
	got.Spec.Size = 2
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := kube.SetDatacenterStatus(ctx, env.Client, dc, kube.MarkDatacenterUpdating(dc)); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dc), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration >= got.Generation || got.Status.CassandraOperatorProgress != cassdcapi.ProgressUpdating ||
		got.GetConditionStatus(cassdcapi.DatacenterReady) != corev1.ConditionTrue ||
		got.GetConditionStatus(cassdcapi.DatacenterUpdating) != corev1.ConditionTrue ||
		got.GetConditionStatus(cassdcapi.DatacenterRollingRestart) != corev1.ConditionTrue {
		t.Errorf("updating status read back as generation %d, %+v", got.Generation, got.Status)
	}
	if still, _ := got.GetCondition(cassdcapi.DatacenterReady); !still.LastTransitionTime.Equal(&readySince.LastTransitionTime) {
		t.Errorf("Ready transition time moved from %v to %v without a status change",
			readySince.LastTransitionTime, still.LastTransitionTime)
	}
}

func TestServiceAccountConfigEnforcesRBAC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	dir := t.TempDir()

	// Multi-document, with a comment-only document, as controller-gen and kustomize write them.
	empty := filepath.Join(dir, "empty.yaml")
	writeFile(t, empty, `# nothing granted
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: nothing
rules: []
`)
	cfg := env.ServiceAccountConfig(t, ns, "nobody", empty)
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	err = c.List(ctx, &cbv1.BenchmarkRunList{}, client.InNamespace(ns))
	if !apierrors.IsForbidden(err) {
		t.Errorf("listing BenchmarkRuns without a grant: got %v, want Forbidden", err)
	}

	// The control: the same path with a grant succeeds, so Forbidden above came from RBAC.
	reader := filepath.Join(dir, "reader.yaml")
	writeFile(t, reader, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules:
- apiGroups: ["cassbench.io"]
  resources: ["benchmarkruns"]
  verbs: ["list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pods
  namespace: elsewhere
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get"]
`)
	cfg = env.ServiceAccountConfig(t, ns, "reader", reader)
	c, err = client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.List(ctx, &cbv1.BenchmarkRunList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("listing BenchmarkRuns with a grant: %v", err)
	}
	err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "missing"}, &corev1.Pod{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("getting a pod through the namespaced Role: got %v, want NotFound", err)
	}
	err = c.List(ctx, &corev1.PodList{}, client.InNamespace(ns))
	if !apierrors.IsForbidden(err) {
		t.Errorf("listing pods, which no role grants: got %v, want Forbidden", err)
	}
}

func assertSameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: decoding %q: %v", what, got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: decoding %q: %v", what, want, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
