package packaging_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// The kind path needs a Docker engine, which make test neither starts nor needs (make
// test-kind starts one and runs the kind path here, hack/kind-test.sh), so the tests below
// check what can be checked without one: the scripts parse, refuse clearly without Docker
// before touching anything, the e2e test compiles, and what kind-up applies renders.

// stubTools puts fake docker (whose `info` fails, as with no engine running), kind, kubectl,
// helm and kustomize first in PATH. The fakes other than docker record any call: none may
// happen once docker info has failed.
func stubTools(t *testing.T) (path, calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("docker", `echo "Cannot connect to the Docker daemon" >&2; exit 1`)
	for _, name := range []string{"kind", "kubectl", "helm", "kustomize"} {
		write(name, `echo "`+name+` $*" >> `+calls+`; exit 1`)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), calls
}

func TestKindScriptsRefuseWithoutDocker(t *testing.T) {
	for _, command := range []string{"kind-up.sh", "kind-deploy.sh", "kind-e2e.sh", "kind-down.sh", "kind-cni.sh",
		"kind-registry.sh up", "kind-registry.sh image", "kind-registry.sh down"} {
		t.Run(command, func(t *testing.T) {
			script, args, _ := strings.Cut(command, " ")
			path := filepath.Join(env.Root, "hack", script)
			if out, err := run(env.Root, nil, "bash", "-n", path); err != nil {
				t.Fatalf("bash -n: %v\n%s", err, out)
			}
			pathEnv, calls := stubTools(t)
			stubs := strings.SplitN(pathEnv, string(os.PathListSeparator), 2)[0]
			_, err := run(env.Root, []string{"PATH=" + pathEnv, "KIND=" + filepath.Join(stubs, "kind"),
				"HELM=" + filepath.Join(stubs, "helm"), "KUSTOMIZE=" + filepath.Join(stubs, "kustomize")}, path, strings.Fields(args)...)
			if err == nil {
				t.Fatal("succeeded without Docker")
			}
			if !strings.Contains(err.Error(), "needs a running Docker engine") {
				t.Errorf("the failure does not say Docker is needed:\n%v", err)
			}
			if data, _ := os.ReadFile(calls); len(data) > 0 {
				t.Errorf("ran tools before checking for Docker:\n%s", data)
			}
		})
	}
}

// make's Docker targets must fail with the message before building kind or helm, which would
// take minutes and need the network.
func TestDockerMakeTargetsRefuseWithoutDocker(t *testing.T) {
	for _, target := range []string{"docker-build", "docker-build-local", "kind-images", "kind-up", "kind-deploy", "test-e2e", "kind-down"} {
		t.Run(target, func(t *testing.T) {
			pathEnv, calls := stubTools(t)
			// An empty tool cache: make would have to build kind to get past the check.
			cache := t.TempDir()
			out, err := run(env.Root, []string{"PATH=" + pathEnv}, "make", "--no-print-directory", "CACHE="+cache, target)
			if err == nil {
				t.Fatalf("make %s succeeded without Docker:\n%s", target, out)
			}
			if !strings.Contains(err.Error(), "needs a running Docker engine") {
				t.Errorf("make %s: the failure does not say Docker is needed:\n%v", target, err)
			}
			if strings.Contains(err.Error(), "go install") {
				t.Errorf("make %s built tools before checking for Docker:\n%v", target, err)
			}
			if data, _ := os.ReadFile(calls); len(data) > 0 {
				t.Errorf("make %s ran tools:\n%s", target, data)
			}
		})
	}
}

// The e2e test only builds with its tag; vet it so that it cannot rot where it never runs.
func TestE2ETestCompiles(t *testing.T) {
	if out, err := run(env.Root, nil, "go", "vet", "-tags", "e2e", "./test/e2e/"); err != nil {
		t.Fatalf("go vet -tags e2e: %v\n%s", err, out)
	}
}

// kind-up creates 1 control plane and 3 workers and installs cass-operator's cluster-wide
// deployment from the module go.mod pins; both must be what the script expects.
func TestKindUpInputs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(env.Root, "test", "e2e", "kind-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cluster struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Nodes      []struct {
			Role string `json:"role"`
		} `json:"nodes"`
	}
	if err := yaml.Unmarshal(data, &cluster); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, n := range cluster.Nodes {
		roles = append(roles, n.Role)
	}
	if cluster.Kind != "Cluster" || cluster.APIVersion != "kind.x-k8s.io/v1alpha4" {
		t.Errorf("kind config is %s %s", cluster.APIVersion, cluster.Kind)
	}
	if diff := cmp.Diff([]string{"control-plane", "worker", "worker", "worker"}, roles); diff != "" {
		t.Errorf("kind nodes (-want +got):\n%s", diff)
	}

	dir, err := run(env.Root, nil, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/k8ssandra/cass-operator")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(env.Root, nil, tool(t, "kustomize"), "build", filepath.Join(strings.TrimSpace(dir), "config", "deployments", "cluster"))
	if err != nil {
		t.Fatalf("rendering cass-operator's cluster-wide deployment: %v", err)
	}
	objs := kube.DecodeYAML(t, "cass-operator", []byte(out))
	dep := find(t, objs, "Deployment", "")
	containers := dep.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	var watch any = "unset"
	for _, c := range containers {
		for _, e := range c.(map[string]any)["env"].([]any) {
			if e.(map[string]any)["name"] == "WATCH_NAMESPACE" {
				watch = e.(map[string]any)["value"]
			}
		}
	}
	if watch != "" {
		t.Errorf("cass-operator WATCH_NAMESPACE %v, want empty (all namespaces)", watch)
	}
	find(t, objs, "CustomResourceDefinition", "cassandradatacenters.cassandra.datastax.com")
}
