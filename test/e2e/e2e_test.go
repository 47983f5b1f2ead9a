//go:build e2e

// Package e2e runs real BenchmarkRuns on the kind cluster of `make kind-up` and `make
// kind-deploy`: real kubelet and containerd, real cass-operator, real Cassandra, the manager
// and writers from the image. Each test is a scenario only a real kubelet can show (cgroup
// limits, OOM kills, a pod deleted by the API); test/local covers what a played kubelet can.
// Run it with `make test-e2e`; it needs Docker and is not part of `make test`.
package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// Settings come from hack/kind-e2e.sh; the defaults are kind-up's.
var (
	kubeContext      = envOr("E2E_KUBE_CONTEXT", "kind-cassbench")
	namespace        = envOr("E2E_NAMESPACE", "cassbench-demo")
	managerNamespace = envOr("E2E_MANAGER_NAMESPACE", "cassbench-system")
	runTimeout       = 20 * time.Minute
)

// managerSelector selects the chart's manager pod.
const managerSelector = "app.kubernetes.io/name=cassbench,app.kubernetes.io/component=manager"

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// cluster is what a scenario talks to: the kind cluster, through an explicit context (never
// a user's current one, which may be a real cluster).
type cluster struct {
	c      client.Client
	cs     kubernetes.Interface
	scheme *runtime.Scheme
}

func connect(t *testing.T) *cluster {
	t.Helper()
	cfg, err := config.GetConfigWithContext(kubeContext)
	if err != nil {
		t.Fatalf("kubeconfig context %s (run make kind-up): %v", kubeContext, err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cbv1.AddToScheme, cassdcapi.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{c: c, cs: cs, scheme: scheme}
}

// sampleRun is config/samples/kind-demo.yaml under a fresh name in the test namespace (the
// spec is immutable: a new run each time), changed by edit.
func (k *cluster) sampleRun(t *testing.T, edit func(*cbv1.BenchmarkRun)) *cbv1.BenchmarkRun {
	t.Helper()
	run := readSample(t, k.scheme)
	run.Name = run.Name + "-" + utilrand.String(5)
	run.Namespace = namespace
	if edit != nil {
		edit(run)
	}
	return run
}

// datacenterBefore is the datacenter a run is to give back as it was.
type datacenterBefore struct {
	key    client.ObjectKey
	size   int32
	config json.RawMessage
}

// start records the run's datacenter as it is, creates the run, and on cleanup dumps what
// explains a failure and deletes the run (its finalizer gives the datacenter back; waiting
// for that would only slow a failed test).
func (k *cluster) start(ctx context.Context, t *testing.T, run *cbv1.BenchmarkRun) datacenterBefore {
	t.Helper()
	dc := &cassdcapi.CassandraDatacenter{}
	key := client.ObjectKey{Namespace: run.Spec.DatacenterRef.Namespace, Name: run.Spec.DatacenterRef.Name}
	if key.Namespace == "" {
		key.Namespace = run.Namespace
	}
	if err := k.c.Get(ctx, key, dc); err != nil {
		t.Fatalf("datacenter %s (run make kind-up): %v", key, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			k.dump(t, run)
		}
		_ = k.c.Delete(context.Background(), run)
	})
	if err := k.c.Create(ctx, run); err != nil {
		t.Fatalf("creating run %s: %v", run.Name, err)
	}
	t.Logf("created BenchmarkRun %s/%s", run.Namespace, run.Name)
	return datacenterBefore{key: key, size: dc.Spec.Size, config: dc.Spec.Config}
}

// waitFinished polls the run until its Succeeded condition is set (after the datacenter was
// given back), calling during on every reading before that.
func (k *cluster) waitFinished(ctx context.Context, t *testing.T, run *cbv1.BenchmarkRun, during func(*cbv1.BenchmarkRun)) *cbv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(runTimeout)
	lastPhase := cbv1.Phase("")
	for {
		if time.Now().After(deadline) {
			t.Fatalf("run did not finish in %s (last phase %q)", runTimeout, lastPhase)
		}
		got := &cbv1.BenchmarkRun{}
		if err := k.c.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
			t.Fatalf("reading run: %v", err)
		}
		if got.Status.Phase != lastPhase {
			lastPhase = got.Status.Phase
			t.Logf("phase %s", lastPhase)
		}
		if meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded) != nil {
			return got
		}
		if during != nil {
			during(got)
		}
		time.Sleep(5 * time.Second)
	}
}

// succeeded fails the test unless the finished run Succeeded.
func succeeded(t *testing.T, done *cbv1.BenchmarkRun) {
	t.Helper()
	cond := meta.FindStatusCondition(done.Status.Conditions, cbv1.ConditionSucceeded)
	if cond == nil || cond.Status != metav1.ConditionTrue {
		t.Fatalf("run failed: %+v", cond)
	}
}

// checkRestored: the run says it gave the datacenter back, and the datacenter has the size
// and config it had before the run, with no lock left.
func (k *cluster) checkRestored(ctx context.Context, t *testing.T, done *cbv1.BenchmarkRun, before datacenterBefore) {
	t.Helper()
	if cond := meta.FindStatusCondition(done.Status.Conditions, cbv1.ConditionDatacenterRestored); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("DatacenterRestored: %+v", cond)
	}
	dc := &cassdcapi.CassandraDatacenter{}
	if err := k.c.Get(ctx, before.key, dc); err != nil {
		t.Fatal(err)
	}
	if dc.Spec.Size != before.size || !datacenter.SameJSON(dc.Spec.Config, before.config) {
		t.Errorf("datacenter not restored: size %d (was %d), config %s (was %s)", dc.Spec.Size, before.size, dc.Spec.Config, before.config)
	}
	if holder, locked := dc.Annotations[cbv1.LockAnnotation]; locked {
		t.Errorf("datacenter still locked by %s", holder)
	}
}

// waitNoNudge waits up to two minutes for the run's last nudge to go from the datacenter
// (the run removes it once cass-operator rolled out the restore): nothing of a run stays on
// the user's datacenter.
func (k *cluster) waitNoNudge(ctx context.Context, t *testing.T, before datacenterBefore) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		dc := &cassdcapi.CassandraDatacenter{}
		if err := k.c.Get(ctx, before.key, dc); err != nil {
			t.Fatal(err)
		}
		v, nudged := dc.Annotations[cbv1.ReconcileRequestedAnnotation]
		if !nudged {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the datacenter still carries %s=%s 2m after its roll", cbv1.ReconcileRequestedAnnotation, v)
		}
		time.Sleep(2 * time.Second)
	}
}

// readSample decodes config/samples/kind-demo.yaml, the run the README shows for kind.
func readSample(t *testing.T, scheme *runtime.Scheme) *cbv1.BenchmarkRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "kind-demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := serializer.NewCodecFactory(scheme).UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("decoding kind-demo.yaml: %v", err)
	}
	run, ok := obj.(*cbv1.BenchmarkRun)
	if !ok {
		t.Fatalf("kind-demo.yaml holds a %T, want a BenchmarkRun", obj)
	}
	return run
}
