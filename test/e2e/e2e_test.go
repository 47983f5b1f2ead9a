//go:build e2e

// Package e2e runs a real BenchmarkRun on the kind cluster of `make kind-up` and `make
// kind-deploy`: real cass-operator, real Cassandra, the manager and writers from the image.
// Run it with `make test-e2e`; it needs Docker and is not part of `make test`.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/yaml"

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

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

func TestKindDemoRunSucceedsAndRestoresTheDatacenter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	// An explicit context: never a user's current one, which may be a real cluster.
	cfg, err := config.GetConfigWithContext(kubeContext)
	if err != nil {
		t.Fatalf("kubeconfig context %s (run make kind-up): %v", kubeContext, err)
	}
	scheme := clientgoscheme.Scheme
	for _, add := range []func(*runtime.Scheme) error{cbv1.AddToScheme, cassdcapi.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	run := readSample(t, scheme)
	run.Name = run.Name + "-" + utilrand.String(5) // the spec is immutable: a new run each time
	run.Namespace = namespace

	dc := &cassdcapi.CassandraDatacenter{}
	dcKey := client.ObjectKey{Namespace: namespace, Name: run.Spec.DatacenterRef.Name}
	if err := c.Get(ctx, dcKey, dc); err != nil {
		t.Fatalf("datacenter %s (run make kind-up): %v", dcKey, err)
	}
	originalSize, originalConfig := dc.Spec.Size, dc.Spec.Config

	t.Cleanup(func() {
		if t.Failed() {
			dump(t, c, clientset, run)
		}
		// The finalizer gives the datacenter back; waiting would only slow a failed test.
		_ = c.Delete(context.Background(), run)
	})
	if err := c.Create(ctx, run); err != nil {
		t.Fatalf("creating run %s: %v", run.Name, err)
	}
	t.Logf("created BenchmarkRun %s/%s", run.Namespace, run.Name)

	var done *cbv1.BenchmarkRun
	deadline := time.Now().Add(runTimeout)
	lastPhase := cbv1.Phase("")
	for done == nil {
		if time.Now().After(deadline) {
			t.Fatalf("run did not finish in %s (last phase %q)", runTimeout, lastPhase)
		}
		got := &cbv1.BenchmarkRun{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
			t.Fatalf("reading run: %v", err)
		}
		if got.Status.Phase != lastPhase {
			lastPhase = got.Status.Phase
			t.Logf("phase %s", lastPhase)
		}
		if cond := meta.FindStatusCondition(got.Status.Conditions, cbv1.ConditionSucceeded); cond != nil {
			if cond.Status != metav1.ConditionTrue {
				t.Fatalf("run failed: %s: %s", cond.Reason, cond.Message)
			}
			done = got
			break
		}
		time.Sleep(5 * time.Second)
	}

	r := done.Status.Results
	if r == nil {
		t.Fatal("no results in status")
	}
	t.Logf("results: %d operations, %d ops/s, window %d ms, %d writers", r.Operations, r.OpsPerSecond, r.WindowMillis, r.WritersReported)
	if r.Operations <= 0 || r.OpsPerSecond <= 0 || r.WindowMillis <= 0 {
		t.Errorf("empty results: %+v", r)
	}
	if r.WritersReported != run.Spec.Writers.Replicas {
		t.Errorf("%d writers reported, want %d", r.WritersReported, run.Spec.Writers.Replicas)
	}
	if r.Writes == nil || r.Writes.Operations <= 0 || r.Writes.Response.P99 <= 0 {
		t.Errorf("no write latencies: %+v", r.Writes)
	}
	checkServerFigures(t, r)
	if cond := meta.FindStatusCondition(done.Status.Conditions, cbv1.ConditionDatacenterRestored); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("DatacenterRestored: %+v", cond)
	}

	if err := c.Get(ctx, dcKey, dc); err != nil {
		t.Fatal(err)
	}
	if dc.Spec.Size != originalSize || !datacenter.SameJSON(dc.Spec.Config, originalConfig) {
		t.Errorf("datacenter not restored: size %d (was %d), config %s (was %s)", dc.Spec.Size, originalSize, dc.Spec.Config, originalConfig)
	}
	if holder, locked := dc.Annotations[cbv1.LockAnnotation]; locked {
		t.Errorf("datacenter still locked by %s", holder)
	}
}

// checkServerFigures: the writers read each node's CPU, GC and SSTables from the metrics
// endpoint of its pod's management API (port 9000), whose played agent in the Cassandra
// container reads them from the JVM beside it: every node's figures are there, none said to
// be missing, and at RF 1 the mutations the nodes applied over the window are the writes
// completed in it (the nodes are read for the window's start once every writer's warm-up
// drained).
func checkServerFigures(t *testing.T, r *cbv1.Results) {
	t.Helper()
	if r.Bottleneck != nil {
		t.Logf("verdict %s: %q", r.Bottleneck.Verdict, r.Bottleneck.Evidence)
	}
	if r.Server == nil || len(r.Server.Nodes) == 0 {
		t.Errorf("no server figures: %+v", r.Server)
		return
	}
	for _, n := range r.Server.Nodes {
		t.Logf("node %s: CPU %dm of %dm, GC %+v, SSTables %+v, mutations %d, not available %q",
			n.Node, n.CPUMillicores, n.CPULimitMillicores, n.GC, n.SSTables, n.Mutations, n.NotAvailable)
		if n.CPUMillicores <= 0 || n.GC == nil || n.SSTables == nil || len(n.NotAvailable) > 0 {
			t.Errorf("node %s lacks server figures: CPU %dm, GC %+v, SSTables %+v, not available %q",
				n.Node, n.CPUMillicores, n.GC, n.SSTables, n.NotAvailable)
		}
	}
	if r.Writes != nil && r.Writes.Failed == 0 && r.Server.Total.Mutations != r.Writes.Operations {
		t.Errorf("the nodes applied %d mutations over the window for %d writes at RF 1 (errors %q)",
			r.Server.Total.Mutations, r.Writes.Operations, r.Server.Errors)
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

// dump prints what explains a failure: the run's status, the datacenter's, pods and their
// states, recent events, and the manager's and the run's pods' logs.
func dump(t *testing.T, c client.Client, cs kubernetes.Interface, run *cbv1.BenchmarkRun) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	section := func(title string) { t.Logf("\n===== %s =====", title) }

	section("BenchmarkRun " + run.Name)
	got := &cbv1.BenchmarkRun{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Logf("reading run: %v", err)
	} else {
		logYAML(t, map[string]any{"spec": got.Spec, "status": got.Status})
	}

	section("CassandraDatacenter " + run.Spec.DatacenterRef.Name)
	dc := &cassdcapi.CassandraDatacenter{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: run.Spec.DatacenterRef.Name}, dc); err != nil {
		t.Logf("reading datacenter: %v", err)
	} else {
		logYAML(t, map[string]any{"annotations": dc.Annotations, "size": dc.Spec.Size,
			"config": json.RawMessage(dc.Spec.Config), "status": dc.Status})
	}

	for _, ns := range []string{namespace, managerNamespace} {
		section("pods in " + ns)
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Logf("listing pods: %v", err)
			continue
		}
		for _, p := range pods.Items {
			t.Logf("%s phase=%s node=%s %s", p.Name, p.Status.Phase, p.Spec.NodeName, containerStates(p))
		}

		section("events in " + ns)
		events, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Logf("listing events: %v", err)
			continue
		}
		sort.Slice(events.Items, func(i, j int) bool {
			return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp)
		})
		for _, e := range events.Items {
			t.Logf("%s %s %s/%s %s: %s", e.LastTimestamp.Format(time.RFC3339), e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}

	logsOf := func(ns, selector string) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			t.Logf("listing pods %s: %v", selector, err)
			return
		}
		for _, p := range pods.Items {
			for _, ctr := range p.Spec.Containers {
				section(fmt.Sprintf("logs %s/%s %s", ns, p.Name, ctr.Name))
				tail := int64(300)
				stream, err := cs.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: ctr.Name, TailLines: &tail}).Stream(ctx)
				if err != nil {
					t.Logf("reading logs: %v", err)
					continue
				}
				var buf bytes.Buffer
				_, _ = io.Copy(&buf, stream)
				_ = stream.Close()
				t.Log(buf.String())
			}
		}
	}
	logsOf(managerNamespace, "app.kubernetes.io/name=cassbench,app.kubernetes.io/component=manager")
	logsOf(namespace, cbv1.RunLabel+"="+run.Name)
}

func containerStates(p corev1.Pod) string {
	var parts []string
	for _, s := range p.Status.ContainerStatuses {
		switch {
		case s.State.Waiting != nil:
			parts = append(parts, fmt.Sprintf("%s=waiting(%s: %s)", s.Name, s.State.Waiting.Reason, s.State.Waiting.Message))
		case s.State.Terminated != nil:
			parts = append(parts, fmt.Sprintf("%s=terminated(%d %s)", s.Name, s.State.Terminated.ExitCode, s.State.Terminated.Reason))
		default:
			parts = append(parts, fmt.Sprintf("%s=running ready=%v restarts=%d", s.Name, s.Ready, s.RestartCount))
		}
	}
	return strings.Join(parts, " ")
}

func logYAML(t *testing.T, v any) {
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Logf("%+v", v)
		return
	}
	t.Log("\n" + string(b))
}
