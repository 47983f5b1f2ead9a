package packaging_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/opmetrics"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// What the chart's monitoring objects must match: the PodMonitor and ServiceMonitor select
// what the manager and writers expose, and the dashboard reads only metrics something exports.

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
