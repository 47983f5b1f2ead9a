package mgmtapi

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/k8ssandra/cass-operator/pkg/httphelper"
	corev1 "k8s.io/api/core/v1"
)

// operatorClient is cass-operator v1.31.0's own management API client, pointed at srv the
// way the operator points it at a pod: the pod IP and the cassandra container's
// mgmt-api-http port (httphelper.BuildPodHostFromPod).
func operatorClient(t *testing.T, srv *httptest.Server) (*httphelper.NodeMgmtClient, *corev1.Pod) {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	pod := &corev1.Pod{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "cassandra",
			Ports: []corev1.ContainerPort{{Name: "mgmt-api-http", ContainerPort: int32(p)}},
		}}},
		Status: corev1.PodStatus{PodIP: host},
	}
	return &httphelper.NodeMgmtClient{Client: http.DefaultClient, Log: logr.Discard(), Protocol: "http"}, pod
}

// TestOperatorClient drives the played API with the operator's client: every call the
// operator makes decodes what the server answers, with the operator's own types.
func TestOperatorClient(t *testing.T) {
	node := down()
	var log logBuffer
	s := New(node, log.printf)
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, pod := operatorClient(t, srv)

	if err := c.CallLifecycleStartEndpoint(pod); err != nil {
		t.Fatalf("start: %v", err)
	}
	fresh := up()
	node.mu.Lock()
	node.reachable, node.bootstrapped, node.version, node.endpoints, node.seeds = true, "COMPLETED", fresh.version, fresh.endpoints, fresh.seeds
	node.mu.Unlock()

	fs, err := c.FeatureSet(pod)
	if err != nil {
		t.Fatalf("features: %v", err)
	}
	for _, f := range []httphelper.Feature{httphelper.AsyncSSTableTasks, httphelper.AsyncFlush, httphelper.FullQuerySupport} {
		if !fs.Supports(f) {
			t.Errorf("feature %s not supported; set %v", f, fs.Features)
		}
	}
	if fs.CassandraVersion != "5.0.9" {
		t.Errorf("cassandra version %q", fs.CassandraVersion)
	}

	eps, err := c.CallMetadataEndpointsEndpoint(pod)
	if err != nil {
		t.Fatalf("endpoints: %v", err)
	}
	want := []httphelper.EndpointState{
		{EndpointIP: "127.0.0.1", Datacenter: "dc1", Status: "NORMAL,-1", Load: "123456.0", HostID: "h1", IsAlive: "true", IsLocal: "true"},
		{EndpointIP: "127.0.0.2", Datacenter: "dc1", Status: "NORMAL,1", Load: "1.2E7", HostID: "h2", IsAlive: "true", IsLocal: "false"},
	}
	if d := cmp.Diff(want, eps.Entity); d != "" {
		t.Errorf("endpoints (-want +got):\n%s", d)
	}
	if err := c.CallProbeClusterEndpoint(pod, "LOCAL_QUORUM", 1); err != nil {
		t.Errorf("cluster probe: %v", err)
	}
	if err := c.CallCreateRoleEndpoint(pod, "dc1-superuser", "secret", true); err != nil {
		t.Errorf("create role: %v", err)
	}
	if on, err := c.CallIsFullQueryLogEnabledEndpoint(pod); err != nil || on {
		t.Errorf("full query logging: %t, %v; want false", on, err)
	}
	if err := c.CallReloadSeedsEndpoint(pod); err != nil {
		t.Errorf("reload seeds: %v", err)
	}
	if err := c.CallDrainEndpoint(pod); err != nil {
		t.Errorf("drain: %v", err)
	}

	for name, call := range map[string]func() (string, error){
		"cleanup":      func() (string, error) { return c.CallKeyspaceCleanup(pod, 1, "bench", nil) },
		"decommission": func() (string, error) { return c.CallDecommissionNode(pod, true) },
	} {
		id, err := call()
		if err != nil || !uuidRE.MatchString(id) {
			t.Fatalf("%s: job %q, %v", name, id, err)
		}
		waitOperatorJob(t, c, pod, name, id)
	}
	// A job the server does not know is "not found", which the operator takes as an empty job.
	if job, err := c.JobDetails(pod, "gone"); err != nil || job.Id != "" {
		t.Errorf("unknown job: %+v, %v", job, err)
	}
	if log.String() != "" {
		t.Errorf("the operator's calls made the server complain:\n%s", log.String())
	}
}

// waitOperatorJob polls job id with the operator's client, as its CassandraTask controller
// does, until it is COMPLETED.
func waitOperatorJob(t *testing.T, c *httphelper.NodeMgmtClient, pod *corev1.Pod, name, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		job, err := c.JobDetails(pod, id)
		if err != nil {
			t.Fatalf("%s: job details: %v", name, err)
		}
		if job.Status == "COMPLETED" {
			if job.Id != id || job.SubmitTime == "" || job.EndTime == "" {
				t.Errorf("%s: job %+v", name, job)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: job %+v never completed", name, job)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
