package mgmtapi

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/k8ssandra/cass-operator/pkg/httphelper"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// TestLocalNode serves the API over node 1 of the shared real cluster (cassandra tier) and
// reads it as cass-operator and cassbench do. It only reads and clears its own snapshots:
// starting, draining and decommissioning would take the shared cluster from other tests.
func TestLocalNode(t *testing.T) {
	c := cassandra.Start(t, cassandra.Options{Nodes: 2, Auth: true}) // the options other tests share
	node := &LocalNode{
		Index: 1,
		Cluster: func(log io.Writer) *localcassandra.Cluster {
			lc := localcassandra.New(log)
			lc.UsersLockHeld = true
			return lc
		},
		Username: c.Username, Password: c.Password,
	}
	defer node.Close()
	srv, log := serve(t, node)
	client, pod := operatorClient(t, srv)

	if resp, err := http.Get(srv.URL + "/api/v0/probes/readiness"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("readiness: %v %v; log:\n%s", resp, err, log.String())
	}
	fs, err := client.FeatureSet(pod)
	if err != nil || !strings.HasPrefix(fs.CassandraVersion, "5.0.") {
		t.Fatalf("features: %+v, %v", fs, err)
	}
	eps, err := client.CallMetadataEndpointsEndpoint(pod)
	if err != nil {
		t.Fatalf("endpoints: %v; log:\n%s", err, log.String())
	}
	if len(eps.Entity) != 2 {
		t.Fatalf("endpoints: %+v, want both nodes", eps.Entity)
	}
	for i, ep := range eps.Entity {
		ip := c.Hosts[i] // 127.0.0.1 and .2 on the shared cluster
		load, lerr := strconv.ParseFloat(ep.Load, 64)
		if ep.EndpointAddress() != ip || ep.HostID == "" || !ep.HasStatus(httphelper.StatusNormal) || lerr != nil || load <= 0 ||
			ep.IsAlive != "true" || ep.IsLocal != strconv.FormatBool(i == 0) || ep.Datacenter == "" {
			t.Errorf("endpoint %d: %+v (load %v, %v)", i, ep, load, lerr)
		}
	}
	if err := client.CallProbeClusterEndpoint(pod, "LOCAL_QUORUM", 2); err != nil {
		t.Errorf("cluster probe at rf 2: %v; log:\n%s", err, log.String())
	}

	if err := client.CallReloadSeedsEndpoint(pod); err != nil {
		t.Errorf("reload seeds: %v; log:\n%s", err, log.String())
	}
	checkSnapshotClearing(t, node, srv)
	if log.String() != "" {
		t.Errorf("the server complained:\n%s", log.String())
	}
}

// checkSnapshotClearing makes a recreating drop leave a snapshot on both nodes (RF 2), clears
// node 1's through the API with cassbench's own client, and checks that the API lists none.
func checkSnapshotClearing(t *testing.T, node *LocalNode, srv *httptest.Server) {
	t.Helper()
	ctx := context.Background()
	const ks = "it_mgmtapi"
	for _, stmt := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
		"CREATE TABLE " + ks + ".t (k int PRIMARY KEY)",
		"INSERT INTO " + ks + ".t (k) VALUES (1)",
		"DROP KEYSPACE " + ks,
	} {
		if _, err := node.Query(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { // node 2 keeps its copy otherwise, one more at every run
		for i := 1; i <= 2; i++ {
			other := &LocalNode{Index: i, Cluster: node.Cluster}
			if err := clearSnapshotsOf(context.Background(), other, nil, []string{ks}); err != nil {
				t.Logf("clearing the test's snapshots on node %d: %v", i, err)
			}
		}
	})
	before := listSnapshots(t, srv.URL, ks)
	if len(before) == 0 {
		t.Fatalf("no snapshot of %s listed after its drop", ks)
	}
	names := map[string]bool{}
	for _, sn := range before {
		names[sn["Snapshot name"]] = true
	}
	var list []string
	for n := range names {
		list = append(list, n)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	if err := (setup.ManagementAPI{Port: p}).ClearSnapshots(ctx, "127.0.0.1", ks, list); err != nil {
		t.Fatalf("clearing through the API: %v", err)
	}
	if after := listSnapshots(t, srv.URL, ks); len(after) != 0 {
		t.Errorf("snapshots left after clearing %v: %v", list, after)
	}
}

func listSnapshots(t *testing.T, base, ks string) []map[string]string {
	t.Helper()
	resp, err := http.Get(base + "/api/v0/ops/node/snapshots?keyspaces=" + ks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Entity []map[string]string `json:"entity"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("listing snapshots: %s, %v", resp.Status, err)
	}
	return body.Entity
}

// serve serves the played API of node until the test ends, with the log of its complaints.
func serve(t *testing.T, node Node) (*httptest.Server, *logBuffer) {
	t.Helper()
	log := &logBuffer{}
	s := New(node, log.printf)
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		srv.Close()
		s.Close()
	})
	return srv, log
}
