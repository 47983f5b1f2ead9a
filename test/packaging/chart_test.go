package packaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/opmetrics"
	"github.com/cassbench/cassbench/internal/testutil/builders"
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
			return fmt.Sprintf("watchNamespaces: [%s]\nmetrics: {podMonitor: {enabled: true}}\nprogressInterval: 2s\n",
				strings.Join(watched, ", "))
		},
		wantImage: defaultImage, wantWriterImage: defaultImage,
		// The ClusterRoleBinding is metrics-auth's: TokenReviews are cluster-wide.
		wantKinds: append([]string{"ClusterRoleBinding", "PodMonitor"}, baseKinds...),
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
		"namespace not a label":    "watchNamespaces: [Team_A]\n",
		"watchNamespaces a string": "watchNamespaces: team-a\n",
		"bad interval":             "metrics: {podMonitor: {interval: 5 seconds}}\n",
		"port out of range":        "ports: {metrics: 70000, probes: 8081}\n",
		"port a string":            "ports: {metrics: \":9443\", probes: 8081}\n",
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
			if cms := ofKind(objs, "ConfigMap"); len(cms) == 1 {
				checkDashboard(t, cms[0])
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

// checkPodMonitor: the PodMonitor must select the pods internal/jobs builds for writers, on
// their metrics port, wherever runs may be.
func checkPodMonitor(t *testing.T, pm *unstructured.Unstructured, watching bool, watched []string) {
	t.Helper()
	run := builders.MakeBenchmarkRun("r", "ns").Datacenter("dc1").Writers(2).Duration(time.Minute).Obj()
	job, err := jobs.Writers(run, jobs.Target{Image: "x", Host: "h", Port: 9042, CassandraDatacenter: "dc1", Nodes: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	selector := labelSelector(t, pm, "spec", "selector")
	if !selector.Matches(labels.Set(job.Spec.Template.Labels)) {
		t.Errorf("PodMonitor selector %s does not match writer pods %v", selector, job.Spec.Template.Labels)
	}
	setup, err := jobs.Setup(run, jobs.Target{Image: "x", Host: "h", Port: 9042, CassandraDatacenter: "dc1", Nodes: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if selector.Matches(labels.Set(setup.Spec.Template.Labels)) {
		t.Errorf("PodMonitor selector %s matches setup pods, which serve no metrics", selector)
	}
	endpoints, _, _ := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	if len(endpoints) != 1 {
		t.Fatalf("PodMonitor has %d endpoints, want 1", len(endpoints))
	}
	port, _, _ := unstructured.NestedString(endpoints[0].(map[string]any), "port")
	ports := job.Spec.Template.Spec.Containers[0].Ports
	if len(ports) != 1 || ports[0].Name != port || ports[0].ContainerPort != 8080 {
		t.Errorf("PodMonitor scrapes port %q; writer containers expose %+v", port, ports)
	}
	targetLabels, _, _ := unstructured.NestedStringSlice(pm.Object, "spec", "podTargetLabels")
	for _, l := range targetLabels {
		if _, ok := job.Spec.Template.Labels[l]; !ok {
			t.Errorf("podTargetLabels names %q, which writer pods do not carry", l)
		}
	}
	anyNS, _, _ := unstructured.NestedBool(pm.Object, "spec", "namespaceSelector", "any")
	names, _, _ := unstructured.NestedStringSlice(pm.Object, "spec", "namespaceSelector", "matchNames")
	switch {
	case watching && (anyNS || !slices.Equal(names, watched)):
		t.Errorf("PodMonitor namespaces any=%v %v, want %v", anyNS, names, watched)
	case !watching && !anyNS:
		t.Errorf("PodMonitor namespaces %v, want any", names)
	}
}

// checkServiceMonitor: the ServiceMonitor must select the metrics Service, in the release
// namespace, on a port the Service has, over HTTPS as the manager serves.
func checkServiceMonitor(t *testing.T, sm, svc *unstructured.Unstructured, ns string) {
	t.Helper()
	selector := labelSelector(t, sm, "spec", "selector")
	if !selector.Matches(labels.Set(svc.GetLabels())) {
		t.Errorf("ServiceMonitor selector %s does not match Service labels %v", selector, svc.GetLabels())
	}
	names, _, _ := unstructured.NestedStringSlice(sm.Object, "spec", "namespaceSelector", "matchNames")
	if !slices.Equal(names, []string{ns}) {
		t.Errorf("ServiceMonitor namespaces %v, want [%s]", names, ns)
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("ServiceMonitor has %d endpoints, want 1", len(endpoints))
	}
	ep := endpoints[0].(map[string]any)
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	var svcPorts []string
	for _, p := range ports {
		svcPorts = append(svcPorts, p.(map[string]any)["name"].(string))
	}
	if !slices.Contains(svcPorts, ep["port"].(string)) || ep["scheme"] != "https" {
		t.Errorf("ServiceMonitor endpoint %v; Service ports %v", ep, svcPorts)
	}
	// Without it Prometheus renames the manager's namespace label (the run's) to
	// exported_namespace, and the dashboard's namespace filter finds nothing.
	if ep["honorLabels"] != true {
		t.Errorf("ServiceMonitor endpoint %v does not honor the manager's labels", ep)
	}
	if sm.GetLabels()["release"] != "kube-prometheus-stack" {
		t.Errorf("ServiceMonitor labels %v lack the configured release label", sm.GetLabels())
	}
}

// metricName finds the metric names a PromQL expression uses: identifiers followed by a label
// matcher, which every expression of the dashboard has.
var metricName = regexp.MustCompile(`\b((?:cassbench|org_apache_cassandra_metrics)_[a-z_]+)\{`)

// managementAPIMetrics are the cluster's metrics the dashboard reads, as the management API's
// /metrics endpoint names them on cass-operator's pods (the same names its other consumers,
// Reaper among them, read); the writer's come from its source below.
var managementAPIMetrics = map[string]bool{
	"org_apache_cassandra_metrics_client_request_latency":               true,
	"org_apache_cassandra_metrics_thread_pools_pending_tasks":           true,
	"org_apache_cassandra_metrics_thread_pools_currently_blocked_tasks": true,
	"org_apache_cassandra_metrics_dropped_message_dropped_total":        true,
	"org_apache_cassandra_metrics_table_pending_compactions_all":        true,
	"org_apache_cassandra_metrics_compaction_bytes_compacted":           true,
}

// checkDashboard: the ConfigMap is labelled for the Grafana sidecar and holds valid dashboard
// JSON whose queries use only metrics the writer serves.
func checkDashboard(t *testing.T, cm *unstructured.Unstructured) {
	t.Helper()
	if cm.GetLabels()["grafana_dashboard"] != "1" || cm.GetLabels()["grafana_folder"] != "Cassandra" {
		t.Errorf("dashboard ConfigMap labels %v", cm.GetLabels())
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if len(data) != 1 {
		t.Fatalf("dashboard ConfigMap holds %d files, want 1", len(data))
	}
	var dashboard struct {
		UID    string `json:"uid"`
		Panels []struct {
			Type    string `json:"type"`
			Repeat  string `json:"repeat"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	for file, content := range data {
		if err := json.Unmarshal([]byte(content), &dashboard); err != nil {
			t.Fatalf("%s is not JSON: %v", file, err)
		}
	}
	served := writerMetrics(t)
	for name, m := range operatorMetrics() {
		served[name] = m
	}
	titles := map[string]bool{}
	repeated := false
	for _, p := range dashboard.Panels {
		titles[p.Title] = true
		if p.Type == "row" {
			repeated = repeated || p.Repeat == "run"
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			used := metricName.FindAllStringSubmatch(target.Expr, -1)
			if len(used) == 0 {
				t.Errorf("panel %q: no cassbench metric in %q", p.Title, target.Expr)
			}
			for _, m := range used {
				if !served[m[1]] && !managementAPIMetrics[m[1]] {
					t.Errorf("panel %q uses %s, which neither the writer nor the manager serves (they serve %v)", p.Title, m[1], served)
				}
			}
		}
	}
	if !repeated {
		t.Error("no row repeats per run")
	}
	for _, want := range []string{"Operations/s by outcome", "Errors/s by kind", "Response latency quantiles", "Pending tasks by stage", "Dropped messages/s by type",
		"Runs by phase", "Sweeps by phase", "Queue depth by datacenter", "Lock held by datacenter", "Lock hold and restore time (p50, p90)"} {
		if !titles[want] {
			t.Errorf("dashboard lacks the panel %q", want)
		}
	}
}

// writerMetrics reads the metric names the writer declares in internal/writer/metrics.go,
// with the series a histogram adds. Reading the source keeps the dashboard honest without
// running a writer, which needs Cassandra (internal/writer's own tests scrape it).
func writerMetrics(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(env.Root, "internal", "writer", "metrics.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`NewDesc\("([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		names[m[1]] = true
		if strings.HasSuffix(m[1], "_seconds") {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[m[1]+suffix] = true
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no metric found in internal/writer/metrics.go")
	}
	return names
}

// operatorMetrics are the names the manager's own collector serves (internal/opmetrics), with
// the series its histograms add.
func operatorMetrics() map[string]bool {
	names := map[string]bool{
		opmetrics.RunsName: true, opmetrics.SweepsName: true, opmetrics.QueueDepthName: true, opmetrics.LockedName: true,
	}
	for _, h := range []string{opmetrics.LockHoldName, opmetrics.RestoreDurationName} {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			names[h+suffix] = true
		}
	}
	return names
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

// The checks above are only worth something if the dry run refuses broken objects. Each case
// breaks one rendered object the way a template edit could.
func TestDryRunRefusesBrokenManifests(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := restrictedNamespace(t)
	objs := renderChart(t, "cassbench", ns, "metrics: {serviceMonitor: {enabled: true}}")
	set := func(obj *unstructured.Unstructured, value any, fields ...string) *unstructured.Unstructured {
		obj = obj.DeepCopy()
		if err := unstructured.SetNestedField(obj.Object, value, fields...); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	withContainer := func(mutate func(map[string]any)) *unstructured.Unstructured {
		dep := find(t, objs, "Deployment", "cassbench-manager").DeepCopy()
		containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
		mutate(containers[0].(map[string]any))
		if err := unstructured.SetNestedSlice(dep.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
		return dep
	}
	for name, c := range map[string]struct {
		obj  *unstructured.Unstructured
		want string // in the error or a warning
	}{
		"privileged manager": {
			obj:  withContainer(func(c map[string]any) { c["securityContext"].(map[string]any)["privileged"] = true }),
			want: "privileged",
		},
		"added capability": {
			obj: withContainer(func(c map[string]any) {
				c["securityContext"].(map[string]any)["capabilities"] = map[string]any{"add": []any{"NET_ADMIN"}}
			}),
			want: "NET_ADMIN",
		},
		"manager as root": {
			obj:  set(find(t, objs, "Deployment", "cassbench-manager"), int64(0), "spec", "template", "spec", "securityContext", "runAsUser"),
			want: "runAsUser=0",
		},
		"unknown field in the Deployment": {
			obj:  withContainer(func(c map[string]any) { c["imagePullPolicyy"] = "Always" }),
			want: "imagePullPolicyy",
		},
		"binding to a role kind that does not exist": {
			obj:  set(find(t, objs, "ClusterRoleBinding", "cassbench-manager"), "Rolle", "roleRef", "kind"),
			want: "roleRef.kind",
		},
		"rule without verbs": {
			obj:  set(find(t, objs, "ClusterRole", "cassbench-manager"), []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}}}, "rules"),
			want: "verbs",
		},
		"ServiceMonitor endpoint of the wrong type": {
			obj:  set(find(t, objs, "ServiceMonitor", "cassbench-manager"), []any{map[string]any{"port": int64(8443)}}, "spec", "endpoints"),
			want: "spec.endpoints[0].port",
		},
	} {
		t.Run(name, func(t *testing.T) {
			warnings, err := newDryRunner(t).apply(ctx, c.obj)
			got := strings.Join(warnings, "\n")
			if err != nil {
				got += "\n" + err.Error()
			}
			if err == nil && len(warnings) == 0 {
				t.Fatalf("applied without error or warning")
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("refused, but without mentioning %q:\n%s", c.want, got)
			}
		})
	}
}

// Applying a rendered chart for real in a test would leave cluster-scoped objects behind in the
// shared control plane; applyForReal deletes them when the test ends.
func applyForReal(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, obj := range objs {
		if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), fieldOwner, client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
		if isClusterScoped(obj.GetKind()) {
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := client.IgnoreNotFound(env.Client.Delete(ctx, obj)); err != nil && !meta.IsNoMatchError(err) {
					t.Errorf("deleting %s %s: %v", obj.GetKind(), obj.GetName(), err)
				}
			})
		}
	}
}
