package validation_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/testutil/kube"
)

const fieldOwner = client.FieldOwner("cassbench-validation-test")

// Every sample must be accepted as a user would apply it (server-side apply, which refuses
// unknown fields), so a sample that drifts from the CRD fails the build.
func TestSamplesAreAccepted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	files, err := filepath.Glob(filepath.Join(env.Root, "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no samples in config/samples")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ns := env.Namespace(t)
			objs := decodeFile(t, file)
			if len(objs) == 0 {
				t.Fatalf("%s holds no object", file)
			}
			for _, obj := range objs {
				if obj.GetNamespace() != "" {
					t.Errorf("%s %s sets a namespace; samples are applied into the user's", obj.GetKind(), obj.GetName())
				}
				obj.SetNamespace(ns)
				if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), fieldOwner, client.ForceOwnership); err != nil {
					t.Errorf("applying %s %s: %v", obj.GetKind(), obj.GetName(), err)
				}
			}
		})
	}
}

// The check above is only worth something if apply refuses what the CRD does not declare.
func TestApplyRefusesUnknownFields(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := validRun(t, env.Namespace(t))
	run.SetGenerateName("")
	run.SetName("typo")
	set(int64(64), "spec", "datacenter", "config", "cassandra_yaml", "concurrent_writes")(t, run.Object)
	err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(run), fieldOwner)
	if err == nil || !strings.Contains(err.Error(), "cassandra_yaml") {
		t.Fatalf("applying a run with an unknown field: got %v, want it refused naming the field", err)
	}
}

// config/default must render with the Makefile's kustomize and every object in it must pass
// the apiserver's validation and admission (server-side dry run), pod security included.
func TestDefaultKustomizationApplies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := env.Run("make", "-s", "--no-print-directory", "kustomize")
	if err != nil {
		t.Fatalf("building kustomize: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	kustomize := strings.TrimSpace(lines[len(lines)-1])
	rendered, err := env.Run(kustomize, "build", "config/default")
	if err != nil {
		t.Fatalf("rendering config/default: %v", err)
	}
	objs := kube.DecodeYAML(t, "config/default", []byte(rendered))

	// PodSecurity answers a Deployment that breaks the namespace's profile with a warning, not
	// an error; collect warnings so that they fail the test.
	warnings := &kube.WarningRecorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = warnings
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}

	kinds := map[string]int{}
	// Namespaces are applied for real: a dry run creates nothing, and everything namespaced
	// would then be refused for want of its namespace.
	for _, obj := range objs {
		kinds[obj.GetKind()]++
		if obj.GetKind() != "Namespace" {
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), fieldOwner, client.ForceOwnership); err != nil {
			t.Fatalf("applying namespace %s: %v", obj.GetName(), err)
		}
	}
	for _, obj := range objs {
		if obj.GetKind() == "Namespace" {
			continue
		}
		err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), fieldOwner, client.ForceOwnership, client.DryRunAll)
		if err != nil {
			t.Errorf("dry-run applying %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
	for _, w := range warnings.All() {
		t.Errorf("apiserver warning: %s", w)
	}

	for _, kind := range []string{"Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole",
		"ClusterRoleBinding", "Role", "RoleBinding", "Service", "Deployment"} {
		if kinds[kind] == 0 {
			t.Errorf("config/default renders no %s; got %v", kind, kinds)
		}
	}
	for _, obj := range objs {
		if obj.GetKind() == "Deployment" {
			checkManager(t, obj)
		}
	}
}

// checkManager holds the manager Deployment to what the rest of the project assumes of it.
func checkManager(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	if obj.GetNamespace() != "cassbench-system" || obj.GetName() != "cassbench-manager" {
		t.Errorf("manager is %s/%s, want cassbench-system/cassbench-manager", obj.GetNamespace(), obj.GetName())
	}
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("manager has %d containers, want 1", len(containers))
	}
	container := containers[0].(map[string]any)
	image, _, _ := unstructured.NestedString(container, "image")
	envs, _, _ := unstructured.NestedSlice(container, "env")
	var writerImage string
	for _, e := range envs {
		if e.(map[string]any)["name"] == "CASSBENCH_IMAGE" {
			writerImage, _ = e.(map[string]any)["value"].(string)
		}
	}
	if image == "" || writerImage != image {
		t.Errorf("CASSBENCH_IMAGE is %q, want the manager's own image %q", writerImage, image)
	}
	command, _, _ := unstructured.NestedStringSlice(container, "command")
	args, _, _ := unstructured.NestedStringSlice(container, "args")
	if strings.Join(command, " ") != "/manager" ||
		strings.Join(args, " ") != "--leader-elect --health-probe-bind-address=:8081 --metrics-bind-address=:8443" {
		t.Errorf("manager runs %v %v", command, args)
	}
}

func decodeFile(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return kube.DecodeYAML(t, path, data)
}
