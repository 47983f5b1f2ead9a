// Package kube runs a real kube-apiserver and etcd (envtest) with cassbench's and
// cass-operator's CRDs installed, for integration tests that need admission, defaulting,
// RBAC and the status subresource to behave as in a cluster.
package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// Env is a running control plane and an admin client for it.
type Env struct {
	// Config reaches the apiserver as a member of system:masters.
	Config *rest.Config
	// Client is an uncached admin client.
	Client client.Client
	// Scheme knows client-go's types, cassbench v1alpha1 and cass-operator v1beta1.
	Scheme *runtime.Scheme
	// Root is the repository root, for tests that read files such as config/rbac/role.yaml.
	Root string
}

// NewScheme returns a scheme with every type the tests and the manager use.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		cbv1.AddToScheme,
		cassdcapi.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return s, nil
}

// Start starts a control plane for one test and stops it when the test ends. A package with
// several tests should share one through StartEnv in TestMain: each start costs seconds.
func Start(tb testing.TB) *Env {
	tb.Helper()
	tier.Require(tb, tier.Integration)
	env, stop, err := StartEnv()
	if err != nil {
		tb.Fatalf("starting envtest: %v", err)
	}
	tb.Cleanup(stop)
	return env
}

// StartEnv starts a control plane and returns a function that stops it. The binaries come from
// KUBEBUILDER_ASSETS, else from hack/control-plane.sh; the cass-operator CRDs from
// CASS_OPERATOR_CRDS, else from `make cass-operator-crds`. Missing binaries are an error, never
// a skip, so a broken setup cannot pass as a green run.
func StartEnv() (*Env, func(), error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	assets, err := ControlPlaneAssets(root)
	if err != nil {
		return nil, nil, err
	}
	cassCRDs, err := CassOperatorCRDs(root)
	if err != nil {
		return nil, nil, err
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, nil, err
	}

	testEnv := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths: []string{
			filepath.Join(root, "config", "crd", "bases"),
			cassCRDs,
		},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	cfg, err := testEnv.Start()
	if err != nil {
		// Start can fail after etcd or the apiserver came up; stop whatever did.
		_ = testEnv.Stop()
		return nil, nil, fmt.Errorf("starting kube-apiserver and etcd from %s: %w", assets, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = testEnv.Stop()
		return nil, nil, fmt.Errorf("creating admin client: %w", err)
	}
	env := &Env{Config: cfg, Client: c, Scheme: scheme, Root: root}
	stop := func() {
		if err := testEnv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping envtest: %v\n", err)
		}
	}
	return env, stop, nil
}

// Namespace creates a namespace named after the test, with a random suffix so that reruns
// and parallel tests never share one. Namespaces are not deleted: envtest runs no namespace
// controller, so deletion would only leave them Terminating.
func (e *Env) Namespace(tb testing.TB) string {
	tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: namePrefix(tb.Name())}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Client.Create(ctx, ns); err != nil {
		tb.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}

var notDNSLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// namePrefix turns a test name into a generateName prefix that is a valid DNS label once the
// apiserver appends its 5-character suffix.
func namePrefix(testName string) string {
	p := notDNSLabel.ReplaceAllString(strings.ToLower(testName), "-")
	p = strings.Trim(p, "-")
	if len(p) > 40 {
		p = strings.TrimRight(p[:40], "-")
	}
	if p == "" {
		p = "test"
	}
	return p + "-"
}

// RepoRoot is the nearest directory at or above the working directory holding go.mod; tests
// run in their package directory, so this finds the module root from any package.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// ControlPlaneAssets returns the directory holding kube-apiserver, etcd and the extra control
// plane binaries named (kube-controller-manager): KUBEBUILDER_ASSETS when it has them all,
// else what hack/control-plane.sh builds for them (cached outside the repository).
func ControlPlaneAssets(root string, extra ...string) (string, error) {
	want := append([]string{"kube-apiserver", "etcd"}, extra...)
	missing := func(dir string) error {
		for _, bin := range want {
			if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
				return fmt.Errorf("control plane assets in %q: %w", dir, err)
			}
		}
		return nil
	}
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" && missing(dir) == nil {
		return dir, nil
	}
	out, err := Run(root, filepath.Join(root, "hack", "control-plane.sh"), extra...)
	if err != nil {
		return "", fmt.Errorf("building the control plane with hack/control-plane.sh "+
			"(or set KUBEBUILDER_ASSETS): %w", err)
	}
	dir := LastLine(out)
	if err := missing(dir); err != nil {
		return "", fmt.Errorf("hack/control-plane.sh printed %q: %w", dir, err)
	}
	return dir, nil
}

// CassOperatorCRDs returns the kustomized cass-operator CRD file. The raw file in the module
// declares spec.config as a base64 string; only the kustomized one accepts a JSON object.
func CassOperatorCRDs(root string) (string, error) {
	if path := os.Getenv("CASS_OPERATOR_CRDS"); path != "" {
		return path, nil
	}
	if _, err := Run(root, "make", "-s", "--no-print-directory", "cass-operator-crds"); err != nil {
		return "", fmt.Errorf("rendering cass-operator CRDs (or set CASS_OPERATOR_CRDS): %w", err)
	}
	version, err := moduleVersion(root, "github.com/k8ssandra/cass-operator")
	if err != nil {
		return "", err
	}
	path := filepath.Join(CacheDir(), "crds", "cass-operator-"+version+".yaml")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("make cass-operator-crds did not write %s: is CASS_OPERATOR_VERSION "+
			"in the Makefile the version go.mod requires? %w", path, err)
	}
	return path, nil
}

// CacheDir mirrors the Makefile's CACHE.
func CacheDir() string {
	if dir := os.Getenv("CASSBENCH_CACHE"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "cassbench-cache")
	}
	return filepath.Join(home, ".cache", "cassbench")
}

// moduleVersion reads a required module's version from go.mod without running the go tool,
// which would be slow and may fail while other packages are half-written.
func moduleVersion(root, module string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("reading go.mod: %w", err)
	}
	re := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(v\S+)`)
	m := re.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("go.mod does not require %s", module)
	}
	return string(m[1]), nil
}

// Run runs a command in dir and returns its stdout; a failure carries both streams, so the
// test log shows why a tool could not be built.
func Run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\nstdout:\n%s\nstderr:\n%s",
			name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// Run runs a command at the repository root and returns its stdout, for tests that need a
// Makefile-built tool (for example `make -s kustomize`).
func (e *Env) Run(name string, args ...string) (string, error) {
	return Run(e.Root, name, args...)
}

// LastLine is the last non-blank line of a script's output, where the scripts print the
// path they made.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
