package packaging_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/controllers"
)

// valueSet is a chart configuration users are expected to install. values gets the namespaces
// the test created for watchNamespaces.
type valueSet struct {
	values func(watched []string) string
	// wantImage and wantWriterImage are the manager's image and its CASSBENCH_IMAGE.
	wantImage, wantWriterImage string
	// wantPorts are the manager's metrics and probe ports; zero means the defaults.
	wantPorts [2]int
	wantKinds []string
}

const defaultImage = "ghcr.io/cassbench/cassbench:0.1.0"

var baseKinds = []string{"CustomResourceDefinition", "ServiceAccount", "ClusterRole", "Role", "RoleBinding",
	"Service", "Deployment"}

var valueSets = map[string]valueSet{
	"defaults": {
		values:    func([]string) string { return "" },
		wantImage: defaultImage, wantWriterImage: defaultImage,
		wantKinds: append([]string{"ClusterRoleBinding"}, baseKinds...),
	},
	"monitors and dashboard": {
		values: func([]string) string {
			return `
metrics:
  serviceMonitor: {enabled: true, labels: {release: kube-prometheus-stack}}
  podMonitor: {enabled: true, interval: 2s}
grafana:
  dashboard: {enabled: true, labels: {grafana_folder: Cassandra}}
`
		},
		wantImage: defaultImage, wantWriterImage: defaultImage,
		wantKinds: append([]string{"ClusterRoleBinding", "ServiceMonitor", "PodMonitor", "ConfigMap"}, baseKinds...),
	},
	"watch namespaces": {
		values: func(watched []string) string {
			return fmt.Sprintf("watchNamespaces: [%s]\nmetrics: {podMonitor: {enabled: true}}\nprogressInterval: 2s\n"+
				"pricing: {perCoreHour: \"0.0416\", perGiBHour: \"0.0056\", currency: EUR}\n", strings.Join(watched, ", "))
		},
		wantImage: defaultImage, wantWriterImage: defaultImage,
		// The ClusterRoleBinding is metrics-auth's: TokenReviews are cluster-wide.
		wantKinds: append([]string{"ClusterRoleBinding", "PodMonitor", "ConfigMap"}, baseKinds...),
	},
	// As kind-deploy installs the image it pushed to the kind cluster's registry: by digest,
	// the tag then unused, and setup and writer pods on the same digest.
	"image by digest": {
		values: func([]string) string {
			return `
image: {repository: localhost:5001/cassbench, tag: dev, digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
`
		},
		wantImage:       "localhost:5001/cassbench@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		wantWriterImage: "localhost:5001/cassbench@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		wantKinds:       append([]string{"ClusterRoleBinding"}, baseKinds...),
	},
	"custom image": {
		values: func([]string) string {
			return `
image: {repository: registry.example.com/perf/cassbench, tag: v9.9.9, pullPolicy: Always}
writerImage: registry.example.com/perf/writer@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
imagePullSecrets: [{name: registry}]
resources: {requests: {cpu: 50m, memory: 128Mi}, limits: {memory: 512Mi}}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: benchmarks, effect: NoSchedule}]
podAnnotations: {example.com/team: perf}
extraArgs: [--zap-log-level=debug]
allowedImages: ["registry.example.com/perf/*"]
ports: {metrics: 18443, probes: 18081}
`
		},
		wantPorts:       [2]int{18443, 18081},
		wantImage:       "registry.example.com/perf/cassbench:v9.9.9",
		wantWriterImage: "registry.example.com/perf/writer@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		wantKinds:       append([]string{"ClusterRoleBinding"}, baseKinds...),
	},
}

// helm lint --strict with every value set (the schema in values.schema.json included).
func TestChartLints(t *testing.T) {
	helm := tool(t, "helm")
	for name, set := range valueSets {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "values.yaml")
			if err := os.WriteFile(file, []byte(set.values([]string{"team-a", "team-b"})), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := run(env.Root, nil, helm, "lint", "--strict", "charts/cassbench", "--values", file); err != nil {
				t.Errorf("helm lint: %v\n%s", err, out)
			}
		})
	}
}

// values.schema.json must refuse what the templates cannot render sensibly.
func TestChartRefusesBadValues(t *testing.T) {
	helm := tool(t, "helm")
	for name, values := range map[string]string{
		"misspelt key":             "writerimage: x\n",
		"bad pull policy":          "image: {pullPolicy: Sometimes}\n",
		"digest without algorithm": "image: {digest: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef}\n",
		"digest with a tag":        "image: {digest: \"v1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}\n",
		"namespace not a label":    "watchNamespaces: [Team_A]\n",
		"watchNamespaces a string": "watchNamespaces: team-a\n",
		"bad interval":             "metrics: {podMonitor: {interval: 5 seconds}}\n",
		"port out of range":        "ports: {metrics: 70000, probes: 8081}\n",
		"port a string":            "ports: {metrics: \":9443\", probes: 8081}\n",
		"price not a number":       "pricing: {perNodeHour: \"$1\"}\n",
		"price a YAML number":      "pricing: {perNodeHour: 1}\n",
		"node and core prices":     "pricing: {perNodeHour: \"1\", perCoreHour: \"0.05\"}\n",
		"currency only":            "pricing: {currency: EUR}\n",
		"misspelt price":           "pricing: {perNodeHuor: \"1\"}\n",
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "values.yaml")
			if err := os.WriteFile(file, []byte(values), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := run(env.Root, nil, helm, "template", "x", "charts/cassbench", "--values", file); err == nil {
				t.Errorf("values %q rendered:\n%s", values, out)
			}
		})
	}
}

// Every object the chart renders, with each value set, must pass the apiserver's validation
// and admission (server-side dry run: schemas, unknown fields, RBAC validation, PodSecurity
// restricted in the release namespace), and hang together: monitors select what the chart
// and the Job builders label, the Deployment runs the right image and flags.
func TestChartAppliesWithValueSets(t *testing.T) {
	for name, set := range valueSets {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			ns := restrictedNamespace(t)
			watched := []string{env.Namespace(t), env.Namespace(t)}
			objs := renderChart(t, "cassbench", ns, set.values(watched))

			kinds := map[string]int{}
			d := newDryRunner(t)
			for _, obj := range objs {
				kinds[obj.GetKind()]++
				warnings, err := d.apply(ctx, obj)
				if err != nil {
					t.Errorf("dry-run applying %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				}
				for _, w := range warnings {
					t.Errorf("dry-run applying %s %s: apiserver warning: %s", obj.GetKind(), obj.GetName(), w)
				}
			}
			for _, kind := range set.wantKinds {
				if kinds[kind] == 0 {
					t.Errorf("no %s rendered; got %v", kind, kinds)
				}
			}
			for kind := range kinds {
				if !slices.Contains(set.wantKinds, kind) {
					t.Errorf("unexpected %s rendered", kind)
				}
			}

			dep := find(t, objs, "Deployment", "cassbench-manager")
			checkManagerDeployment(t, dep, set.wantImage, set.wantWriterImage, set.wantPorts)
			checkNamespaces(t, objs, ns, name == "watch namespaces", watched)
			if pm := ofKind(objs, "PodMonitor"); len(pm) == 1 {
				checkPodMonitor(t, pm[0], name == "watch namespaces", watched)
			}
			if sm := ofKind(objs, "ServiceMonitor"); len(sm) == 1 {
				checkServiceMonitor(t, sm[0], find(t, objs, "Service", ""), ns)
			}
			for _, cm := range ofKind(objs, "ConfigMap") {
				switch cm.GetName() {
				case "cassbench-dashboard":
					checkDashboard(t, cm)
				case "cassbench-pricing":
					checkPricing(t, cm, dep, objs)
				default:
					t.Errorf("unexpected ConfigMap %s", cm.GetName())
				}
			}
		})
	}
}

// checkManagerDeployment holds the chart's Deployment to what the image and the controller
// assume: the manager binary, its own image passed on to setup and writer pods, the flags
// values ask for.
func checkManagerDeployment(t *testing.T, dep *unstructured.Unstructured, wantImage, wantWriterImage string, wantPorts [2]int) {
	t.Helper()
	c := managerContainer(t, dep)
	if c.image != wantImage {
		t.Errorf("manager image %q, want %q", c.image, wantImage)
	}
	if c.env["CASSBENCH_IMAGE"] != wantWriterImage {
		t.Errorf("CASSBENCH_IMAGE %q, want %q", c.env["CASSBENCH_IMAGE"], wantWriterImage)
	}
	if strings.Join(c.command, " ") != "/manager" {
		t.Errorf("command %v, want [/manager]", c.command)
	}
	metrics, probes := int64(8443), int64(8081)
	if wantPorts != [2]int{} {
		metrics, probes = int64(wantPorts[0]), int64(wantPorts[1])
	}
	for _, arg := range []string{"--leader-elect", fmt.Sprintf("--health-probe-bind-address=:%d", probes), fmt.Sprintf("--metrics-bind-address=:%d", metrics)} {
		if !slices.Contains(c.args, arg) {
			t.Errorf("args %v lack %s", c.args, arg)
		}
	}
	// The metrics Service and the probes name these ports: they must be where the flags bind.
	ports, _, _ := unstructured.NestedSlice(c.raw, "ports")
	got := map[string]int64{}
	for _, p := range ports {
		m := p.(map[string]any)
		got[m["name"].(string)], _ = m["containerPort"].(int64)
	}
	if diff := cmp.Diff(map[string]int64{"metrics": metrics, "probes": probes}, got); diff != "" {
		t.Errorf("container ports (-want +got):\n%s", diff)
	}
}

// checkNamespaces: everything namespaced goes to the release namespace, except the manager's
// RoleBindings, one per watched namespace when watchNamespaces is set.
func checkNamespaces(t *testing.T, objs []*unstructured.Unstructured, release string, watching bool, watched []string) {
	t.Helper()
	var bound []string
	for _, obj := range objs {
		switch {
		case obj.GetKind() == "RoleBinding" && obj.GetName() == "cassbench-manager":
			bound = append(bound, obj.GetNamespace())
		case isClusterScoped(obj.GetKind()):
			if obj.GetNamespace() != "" {
				t.Errorf("cluster-scoped %s %s has namespace %q", obj.GetKind(), obj.GetName(), obj.GetNamespace())
			}
		case obj.GetNamespace() != release:
			t.Errorf("%s %s is in namespace %q, want the release's %q", obj.GetKind(), obj.GetName(), obj.GetNamespace(), release)
		}
	}
	if !watching {
		watched = nil
	}
	for _, crb := range ofKind(objs, "ClusterRoleBinding") {
		if crb.GetName() == "cassbench-manager" && watching {
			t.Error("the manager's ClusterRole is bound cluster-wide although watchNamespaces is set")
		}
	}
	if diff := cmp.Diff(watched, bound); diff != "" {
		t.Errorf("manager RoleBindings' namespaces (-want +got):\n%s", diff)
	}
	dep := find(t, objs, "Deployment", "cassbench-manager")
	var flag string
	for _, a := range managerContainer(t, dep).args {
		if v, ok := strings.CutPrefix(a, "--watch-namespaces="); ok {
			flag = v
		}
	}
	if flag != strings.Join(watched, ",") {
		t.Errorf("--watch-namespaces=%q, want %q", flag, strings.Join(watched, ","))
	}
}

func isClusterScoped(kind string) bool {
	switch kind {
	case "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Namespace":
		return true
	}
	return false
}

func labelSelector(t *testing.T, obj *unstructured.Unstructured, fields ...string) labels.Selector {
	t.Helper()
	matchLabels, _, err := unstructured.NestedStringMap(obj.Object, append(fields, "matchLabels")...)
	if err != nil || len(matchLabels) == 0 {
		t.Fatalf("%s %s: no matchLabels at %v: %v", obj.GetKind(), obj.GetName(), fields, err)
	}
	return labels.SelectorFromSet(matchLabels)
}

// The chart and config/default are two ways to install the same thing: same CRDs, same RBAC
// rules, same objects (but the Namespace, which Helm users create), and a manager Deployment
// with the same security context, probes, ports, command, flags and resources.
func TestChartMatchesKustomize(t *testing.T) {
	chart := renderChart(t, "cassbench", "cassbench-system", "")
	kust := renderKustomize(t)

	key := func(o *unstructured.Unstructured) string {
		return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	var chartKeys, kustKeys []string
	for _, o := range chart {
		chartKeys = append(chartKeys, key(o))
	}
	for _, o := range kust {
		if o.GetKind() != "Namespace" {
			kustKeys = append(kustKeys, key(o))
		}
	}
	slices.Sort(chartKeys)
	slices.Sort(kustKeys)
	if diff := cmp.Diff(kustKeys, chartKeys); diff != "" {
		t.Errorf("objects (-kustomize +chart):\n%s", diff)
	}

	for _, o := range kust {
		switch o.GetKind() {
		case "CustomResourceDefinition":
			c := find(t, chart, o.GetKind(), o.GetName())
			if diff := cmp.Diff(o.Object, c.Object); diff != "" {
				t.Errorf("CRD %s differs (-config +chart); run make manifests:\n%s", o.GetName(), diff)
			}
		case "ClusterRole", "Role":
			c := find(t, chart, o.GetKind(), o.GetName())
			if diff := cmp.Diff(o.Object["rules"], c.Object["rules"]); diff != "" {
				t.Errorf("%s %s rules differ (-config +chart); run make manifests:\n%s", o.GetKind(), o.GetName(), diff)
			}
		case "ClusterRoleBinding", "RoleBinding":
			c := find(t, chart, o.GetKind(), o.GetName())
			for _, field := range []string{"roleRef", "subjects"} {
				if diff := cmp.Diff(o.Object[field], c.Object[field]); diff != "" {
					t.Errorf("%s %s %s differ (-config +chart):\n%s", o.GetKind(), o.GetName(), field, diff)
				}
			}
		case "Service":
			c := find(t, chart, o.GetKind(), o.GetName())
			if diff := cmp.Diff(o.Object["spec"].(map[string]any)["ports"], c.Object["spec"].(map[string]any)["ports"]); diff != "" {
				t.Errorf("Service %s ports differ (-config +chart):\n%s", o.GetName(), diff)
			}
		}
	}

	kDep := find(t, kust, "Deployment", "cassbench-manager")
	cDep := find(t, chart, "Deployment", "cassbench-manager")
	for _, path := range [][]string{
		{"spec", "replicas"},
		{"spec", "template", "spec", "securityContext"},
		{"spec", "template", "spec", "serviceAccountName"},
		{"spec", "template", "spec", "terminationGracePeriodSeconds"},
	} {
		k, _, _ := unstructured.NestedFieldNoCopy(kDep.Object, path...)
		c, _, _ := unstructured.NestedFieldNoCopy(cDep.Object, path...)
		if diff := cmp.Diff(k, c); diff != "" {
			t.Errorf("Deployment %s differs (-config +chart):\n%s", strings.Join(path, "."), diff)
		}
	}
	kc, cc := managerContainer(t, kDep).raw, managerContainer(t, cDep).raw
	for _, field := range []string{"name", "command", "args", "ports", "livenessProbe", "readinessProbe", "resources", "securityContext"} {
		if diff := cmp.Diff(kc[field], cc[field]); diff != "" {
			t.Errorf("manager container %s differs (-config +chart):\n%s", field, diff)
		}
	}
}

type container struct {
	raw     map[string]any
	image   string
	command []string
	args    []string
	env     map[string]string
}

func managerContainer(t *testing.T, dep *unstructured.Unstructured) container {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("manager Deployment has %d containers, want 1", len(containers))
	}
	raw := containers[0].(map[string]any)
	c := container{raw: raw, env: map[string]string{}}
	c.image, _, _ = unstructured.NestedString(raw, "image")
	c.command, _, _ = unstructured.NestedStringSlice(raw, "command")
	c.args, _, _ = unstructured.NestedStringSlice(raw, "args")
	envs, _, _ := unstructured.NestedSlice(raw, "env")
	for _, e := range envs {
		m := e.(map[string]any)
		v, _ := m["value"].(string)
		c.env[m["name"].(string)] = v
	}
	return c
}

// checkPricing holds the pricing ConfigMap to what the manager reads: the Deployment names it
// by --pricing-configmap, its key holds the values' prices, and the Role beside it lets the
// manager get that ConfigMap and nothing else.
func checkPricing(t *testing.T, cm, dep *unstructured.Unstructured, objs []*unstructured.Unstructured) {
	t.Helper()
	if want := "--pricing-configmap=" + cm.GetNamespace() + "/" + cm.GetName(); !slices.Contains(managerContainer(t, dep).args, want) {
		t.Errorf("the manager's args lack %s", want)
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	var p cbv1.Pricing
	if err := yaml.UnmarshalStrict([]byte(data[controllers.PricingKey]), &p); err != nil || p != (cbv1.Pricing{PerCoreHour: "0.0416", PerGiBHour: "0.0056", Currency: "EUR"}) {
		t.Errorf("%s: %+v (%v)", controllers.PricingKey, p, err)
	}
	role := find(t, objs, "Role", "cassbench-pricing")
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	want := []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "resourceNames": []any{cm.GetName()}, "verbs": []any{"get"}}}
	if !equality.Semantic.DeepEqual(rules, want) {
		t.Errorf("pricing Role rules %v, want %v", rules, want)
	}
	find(t, objs, "RoleBinding", "cassbench-pricing")
}
