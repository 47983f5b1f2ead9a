// Package packaging_test checks what users install: the Helm chart and config/default render
// and pass the apiserver's validation and admission; the manager works with exactly the
// chart's RBAC; the image's binaries are static and its user and paths match the manifests;
// the kind scripts and the e2e test stay runnable. None of it needs Docker.
package packaging_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/play"
)

const fieldOwner = client.FieldOwner("cassbench-packaging-test")

var (
	env *kube.Env
	// pl plays cass-operator, the Job controller and the kubelet.
	pl play.Player
)

func TestMain(m *testing.M) {
	kube.Main(m, func(e *kube.Env) error {
		env, pl = e, play.Player{C: e.Client}
		// prometheus-operator's ServiceMonitor and PodMonitor CRDs, from its Go module (cached
		// by the Makefile), so that the chart's monitors are dry-run against their real schema
		// too.
		dir, err := makeOutput("monitoring-crds")
		if err != nil {
			return err
		}
		if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
			Paths: []string{dir}, ErrorIfPathMissing: true,
		}); err != nil {
			return fmt.Errorf("installing the monitoring CRDs from %s: %w", dir, err)
		}
		return nil
	})
}

// makeOutput runs a Makefile target that prints a path (a cached tool, a cached directory)
// and returns the path.
func makeOutput(target string) (string, error) {
	root, err := kube.RepoRoot()
	if err != nil {
		return "", err
	}
	out, err := run(root, nil, "make", "-s", "--no-print-directory", target)
	if err != nil {
		return "", fmt.Errorf("make %s: %w", target, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

func tool(t testing.TB, target string) string {
	t.Helper()
	path, err := makeOutput(target)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// run runs a command in dir with extra environment and returns its stdout; a failure carries
// both streams.
func run(dir string, extraEnv []string, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extraEnv...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w\nstdout:\n%s\nstderr:\n%s",
			name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// renderChart runs helm template for the chart with the given values files content and
// returns every object, CRDs included.
func renderChart(t testing.TB, release, namespace string, values string) []*unstructured.Unstructured {
	t.Helper()
	helm := tool(t, "helm")
	args := []string{"template", release, "charts/cassbench", "--namespace", namespace, "--include-crds"}
	if values != "" {
		file := filepath.Join(t.TempDir(), "values.yaml")
		if err := os.WriteFile(file, []byte(values), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--values", file)
	}
	out, err := run(env.Root, nil, helm, args...)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	return kube.DecodeYAML(t, "helm template", []byte(out))
}

// renderKustomize renders config/default with the Makefile's kustomize.
func renderKustomize(t testing.TB) []*unstructured.Unstructured {
	t.Helper()
	out, err := run(env.Root, nil, tool(t, "kustomize"), "build", "config/default")
	if err != nil {
		t.Fatalf("rendering config/default: %v", err)
	}
	return kube.DecodeYAML(t, "config/default", []byte(out))
}

// dryRunner applies objects with server-side dry run through a client that records the
// apiserver's warnings: PodSecurity answers a Deployment that breaks its namespace's profile
// with a warning, not an error, and the tests count warnings as failures.
type dryRunner struct {
	client   client.Client
	warnings *kube.WarningRecorder
}

func newDryRunner(t testing.TB) *dryRunner {
	t.Helper()
	warnings := &kube.WarningRecorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = warnings
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &dryRunner{client: c, warnings: warnings}
}

// apply dry-runs one object and returns the warnings it caused and its error. Tests using
// one dryRunner must not apply concurrently, or warnings would be attributed wrongly.
func (d *dryRunner) apply(ctx context.Context, obj *unstructured.Unstructured) ([]string, error) {
	before := len(d.warnings.All())
	err := d.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), fieldOwner,
		client.ForceOwnership, client.DryRunAll)
	return d.warnings.All()[before:], err
}

// restrictedNamespace creates a namespace that enforces PodSecurity restricted, as
// config/manager's does and docs/install.md tells Helm users to label theirs.
func restrictedNamespace(t testing.TB) string {
	t.Helper()
	ns := env.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("Namespace")
	obj.SetName(ns)
	obj.SetLabels(map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted",
		"pod-security.kubernetes.io/warn":    "restricted",
	})
	if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), fieldOwner); err != nil {
		t.Fatalf("labelling namespace %s: %v", ns, err)
	}
	return ns
}

// find returns the only object of kind and name, failing the test if there is not exactly one.
func find(t testing.TB, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %q, found %d", kind, name, len(found))
	}
	return found[0]
}

func ofKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}
