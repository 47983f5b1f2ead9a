package mgmtapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// up is a node that runs, answers CQL and sees itself and one peer.
func up() *fakeNode {
	return &fakeNode{
		running: true, reachable: true, bootstrapped: "COMPLETED", version: "5.0.9",
		endpoints: []map[string]string{
			{"ENDPOINT_IP": "127.0.0.1", "DC": "dc1", "STATUS": "NORMAL,-1", "LOAD": "123456.0", "HOST_ID": "h1", "IS_ALIVE": "true", "IS_LOCAL": "true"},
			{"ENDPOINT_IP": "127.0.0.2", "DC": "dc1", "STATUS": "NORMAL,1", "LOAD": "1.2E7", "HOST_ID": "h2", "IS_ALIVE": "true", "IS_LOCAL": "false"},
		},
		seeds: []string{"127.0.0.1"},
	}
}

// down is a node whose process does not run and which answers nothing.
func down() *fakeNode { return &fakeNode{} }

func with(f *fakeNode, change func(*fakeNode)) func() *fakeNode {
	return func() *fakeNode { change(f); return f }
}

// envelope is the Jackson Entity.json wrapper around v, as it reaches a client.
func envelope(v any) map[string]any {
	media := map[string]any{"type": "application", "subtype": "json", "parameters": map[string]any{}, "wildcardType": false, "wildcardSubtype": false}
	return map[string]any{
		"entity":      v,
		"variant":     map[string]any{"language": nil, "mediaType": media, "encoding": nil, "languageString": nil},
		"annotations": []any{},
		"mediaType":   media,
		"language":    nil,
		"encoding":    nil,
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

type routeCase struct {
	node        func() *fakeNode
	started     bool // a start was requested before the request
	method      string
	target      string
	body        string
	status      int
	contentType string
	text        *string // exact text body
	json        any     // decoded JSON body
	jobID       bool    // the body is a job id
	calls       []string
	log         string // a substring of the server's log
}

func ptr(s string) *string { return &s }

func routeCases() map[string]routeCase {
	return map[string]routeCase{
		"liveness before any start":          {node: down, method: "GET", target: "/api/v0/probes/liveness", status: 200, contentType: "text/plain", text: ptr("OK")},
		"liveness of a started node":         {node: up, started: true, method: "GET", target: "/api/v0/probes/liveness", status: 200, text: ptr("OK")},
		"liveness of a started node gone":    {node: down, started: true, method: "GET", target: "/api/v0/probes/liveness", status: 500, text: ptr(""), log: "process is gone"},
		"readiness of a bootstrapped node":   {node: up, method: "GET", target: "/api/v0/probes/readiness", status: 200, text: ptr("OK")},
		"readiness while bootstrapping":      {node: with(up(), func(f *fakeNode) { f.bootstrapped = "IN_PROGRESS" }), method: "GET", target: "/api/v0/probes/readiness", status: 500, text: ptr("")},
		"readiness without CQL":              {node: down, method: "GET", target: "/api/v0/probes/readiness", status: 500, text: ptr("Internal connection to Cassandra closed")},
		"start a stopped node":               {node: down, method: "POST", target: "/api/v0/lifecycle/start", status: 201, text: ptr("OK\n"), calls: []string{`start replace=""`}},
		"start replacing a node":             {node: down, method: "POST", target: "/api/v0/lifecycle/start?replace_ip=10.0.0.7", status: 201, calls: []string{`start replace="10.0.0.7"`}},
		"start with a bad replace ip":        {node: down, method: "POST", target: "/api/v0/lifecycle/start?replace_ip=0.0.0.0.0", status: 400, text: ptr("Invalid replace IP passed: 0.0.0.0.0")},
		"start with replace consistency":     {node: down, method: "POST", target: "/api/v0/lifecycle/start?replace_ip=10.0.0.7&replace_consistency=ONE", status: 400, text: ptr("Consistency parameter for replace is only accepted with DSE")},
		"start a node that fails":            {node: with(down(), func(f *fakeNode) { f.startErr = errBoom }), method: "POST", target: "/api/v0/lifecycle/start", status: 420, text: ptr("Error starting Cassandra"), log: "boom"},
		"start a running node":               {node: up, method: "POST", target: "/api/v0/lifecycle/start", status: 202, text: ptr("")},
		"start a running node without CQL":   {node: with(down(), func(f *fakeNode) { f.running = true }), method: "POST", target: "/api/v0/lifecycle/start", status: 204, text: ptr("")},
		"start a node answering, no process": {node: with(up(), func(f *fakeNode) { f.running = false }), method: "POST", target: "/api/v0/lifecycle/start", status: 206, text: ptr("")},
		"features": {node: up, method: "GET", target: "/api/v0/metadata/versions/features", status: 200, contentType: "application/json",
			json: map[string]any{"cassandra_version": "5.0.9", "mgmt_version": "", "features": []any{
				"async_sstable_tasks", "full_query_logging", "rebuild", "async_upgrade_sstable_task", "async_compaction_task",
				"async_scrub_task", "async_move_task", "async_gc_task", "reload_internode_truststore", "async_flush_task"}}},
		"features without CQL": {node: down, method: "GET", target: "/api/v0/metadata/versions/features", status: 500, text: ptr("Internal connection to Cassandra closed")},
		"endpoints": {node: up, method: "GET", target: "/api/v0/metadata/endpoints", status: 200, contentType: "application/json", json: envelope([]any{
			map[string]any{"ENDPOINT_IP": "127.0.0.1", "DC": "dc1", "STATUS": "NORMAL,-1", "LOAD": "123456.0", "HOST_ID": "h1", "IS_ALIVE": "true", "IS_LOCAL": "true"},
			map[string]any{"ENDPOINT_IP": "127.0.0.2", "DC": "dc1", "STATUS": "NORMAL,1", "LOAD": "1.2E7", "HOST_ID": "h2", "IS_ALIVE": "true", "IS_LOCAL": "false"},
		})},
		"endpoints without CQL":                 {node: down, method: "GET", target: "/api/v0/metadata/endpoints", status: 500},
		"cluster healthy at LOCAL_QUORUM, rf 1": {node: up, method: "GET", target: "/api/v0/probes/cluster?consistency_level=LOCAL_QUORUM&rf_per_dc=1", status: 200, text: ptr("")},
		"cluster with a dead node": {node: with(up(), func(f *fakeNode) { f.endpoints[1]["IS_ALIVE"] = "false" }), method: "GET", target: "/api/v0/probes/cluster?consistency_level=LOCAL_QUORUM&rf_per_dc=1",
			status: 500, contentType: "application/json", json: map[string]any{"[dc1]": []any{"127.0.0.2"}}},
		"cluster of 2 at the defaults (rf 3)": {node: up, method: "GET", target: "/api/v0/probes/cluster", status: 200},
		"cluster too small for the defaults": {node: with(up(), func(f *fakeNode) { f.endpoints = f.endpoints[:1] }), method: "GET", target: "/api/v0/probes/cluster",
			status: 500, json: map[string]any{"[dc1]": []any{"2 replicas required, but only 1 nodes in the ring"}}},
		"cluster with rf not a number":   {node: up, method: "GET", target: "/api/v0/probes/cluster?rf_per_dc=x", status: 404, log: "rf_per_dc"},
		"cluster with rf 0":              {node: up, method: "GET", target: "/api/v0/probes/cluster?rf_per_dc=0", status: 500, text: ptr("rf_per_dc must be > 0")},
		"create role":                    {node: up, method: "POST", target: "/api/v0/ops/auth/role?username=dc1-superuser&password=it's&is_superuser=true&can_login=true", status: 200, text: ptr("OK")},
		"create role without a name":     {node: up, method: "POST", target: "/api/v0/ops/auth/role?password=x", status: 400, text: ptr("Username is empty")},
		"create role without a password": {node: up, method: "POST", target: "/api/v0/ops/auth/role?username=u", status: 400, text: ptr("Password is empty")},
		"full query logging":             {node: up, method: "GET", target: "/api/v0/ops/node/fullquerylogging", status: 200, contentType: "application/json", json: envelope(false)},
		"reload seeds":                   {node: up, method: "POST", target: "/api/v0/ops/seeds/reload", status: 200, contentType: "application/json", json: []any{"127.0.0.1"}, calls: []string{"nodetool reloadseeds"}},
		"reload seeds without CQL":       {node: down, method: "POST", target: "/api/v0/ops/seeds/reload", status: 500},
		"cleanup a keyspace": {node: up, method: "POST", target: "/api/v1/ops/keyspace/cleanup", body: `{"jobs":2,"keyspace_name":"bench","tables":["t"]}`,
			status: 202, contentType: "text/plain", jobID: true, calls: []string{"nodetool cleanup --jobs 2 -- bench t"}},
		"cleanup every keyspace":            {node: up, method: "POST", target: "/api/v1/ops/keyspace/cleanup", body: `{"jobs":0,"keyspace_name":"","tables":[]}`, status: 202, jobID: true, calls: []string{"nodetool cleanup --jobs 0"}},
		"cleanup as cass-operator sends it": {node: up, method: "POST", target: "/api/v1/ops/keyspace/cleanup", body: `{"jobs":"2","keyspace_name":"bench"}`, status: 202, jobID: true, calls: []string{"nodetool cleanup --jobs 2 -- bench"}},
		"cleanup with jobs not a number":    {node: up, method: "POST", target: "/api/v1/ops/keyspace/cleanup", body: `{"jobs":"two"}`, status: 400, log: "jobs"},
		"cleanup system_schema":             {node: up, method: "POST", target: "/api/v1/ops/keyspace/cleanup", body: `{"keyspace_name":"System_Schema"}`, status: 200, text: ptr("OK")},
		"cleanup with a bad body":           {node: up, method: "POST", target: "/api/v1/ops/keyspace/cleanup", body: `{`, status: 400},
		"decommission":                      {node: up, method: "POST", target: "/api/v1/ops/node/decommission?force=true", status: 202, contentType: "text/plain", jobID: true, calls: []string{"nodetool decommission --force"}},
		"decommission, not forced":          {node: up, method: "POST", target: "/api/v1/ops/node/decommission?force=yes", status: 202, jobID: true, calls: []string{"nodetool decommission"}},
		"job that does not exist":           {node: up, method: "GET", target: "/api/v0/ops/executor/job?job_id=nope", status: 404, contentType: "application/json", json: map[string]any{}},
		"drain":                             {node: up, method: "POST", target: "/api/v0/ops/node/drain", status: 200, text: ptr("OK"), calls: []string{"nodetool drain"}},
		"drain that fails":                  {node: with(up(), func(f *fakeNode) { f.opErr = errBoom }), method: "POST", target: "/api/v0/ops/node/drain", status: 500, text: ptr("nodetool: boom")},
		"clear snapshots as cassbench does": {node: up, method: "DELETE", target: "/api/v0/ops/node/snapshots?keyspaces=bench&snapshotNames=dropped-1&snapshotNames=dropped-2",
			status: 200, text: ptr("OK"), calls: []string{"nodetool clearsnapshot -t dropped-1 -- bench", "nodetool clearsnapshot -t dropped-2 -- bench"}},
		"clear every snapshot": {node: up, method: "DELETE", target: "/api/v0/ops/node/snapshots", status: 200, calls: []string{"nodetool clearsnapshot --all --"}},
		"list snapshots of a keyspace": {node: with(up(), func(f *fakeNode) {
			f.snapshots = []map[string]any{
				{"name": "dropped-1", "keyspace_name": "bench", "table_name": "t", "true_size": int64(10), "size_on_disk": int64(4096), "created_at": "c", "expires_at": nil, "ephemeral": false},
				{"name": "other", "keyspace_name": "ks2", "table_name": "u", "true_size": int64(1), "size_on_disk": int64(1), "created_at": "c", "expires_at": nil, "ephemeral": false},
			}
		}), method: "GET", target: "/api/v0/ops/node/snapshots?keyspaces=bench", status: 200, contentType: "application/json", json: envelope([]any{map[string]any{
			"Snapshot name": "dropped-1", "Keyspace name": "bench", "Column family name": "t", "True size": "10", "Size on disk": "4096",
			"Creation time": "c", "Expiration time": "null", "Ephemeral": "false"}})},
		"flush a table as cassbench does": {node: up, method: "POST", target: "/api/v0/ops/tables/flush", body: `{"jobs":1,"keyspace_name":"bench","tables":["t"]}`,
			status: 200, contentType: "text/plain", text: ptr("OK"), calls: []string{"nodetool flush -- bench t"}},
		"flush as cass-operator sends it": {node: up, method: "POST", target: "/api/v0/ops/tables/flush", body: `{"jobs":"-1","keyspace_name":"bench","tables":null}`, status: 200, calls: []string{"nodetool flush -- bench"}},
		"flush every keyspace":            {node: up, method: "POST", target: "/api/v0/ops/tables/flush", body: `{}`, status: 200, calls: []string{"nodetool flush --"}},
		"flush that fails":                {node: with(up(), func(f *fakeNode) { f.opErr = errBoom }), method: "POST", target: "/api/v0/ops/tables/flush", body: `{"keyspace_name":"bench"}`, status: 500, text: ptr("nodetool: boom")},
		"flush with a bad body":           {node: up, method: "POST", target: "/api/v0/ops/tables/flush", body: `[`, status: 400},
		"compact a table as cassbench does": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"split_output":false,"user_defined":false,"keyspace_name":"bench","tables":["t"]}`,
			status: 200, contentType: "text/plain", text: ptr("OK"), calls: []string{"nodetool compact -- bench t"}},
		"compact as cass-operator sends it": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"keyspace_name":"bench","tables":["t"]}`, status: 200, calls: []string{"nodetool compact -- bench t"}},
		"compact every keyspace, split":     {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"split_output":true}`, status: 200, calls: []string{"nodetool compact --split-output --"}},
		"compact a token range": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"keyspace_name":"bench","start_token":"-10","end_token":"10"}`,
			status: 200, calls: []string{"nodetool compact --start-token -10 --end-token 10 -- bench"}},
		"compact SSTables named": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"user_defined":true,"user_defined_files":["nb-1-big-Data.db"]}`,
			status: 200, calls: []string{"nodetool compact --user-defined -- nb-1-big-Data.db"}},
		"compact split with tokens": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"split_output":true,"start_token":"1"}`,
			status: 400, text: ptr("Invalid option combination: Can not use split-output here")},
		"compact user-defined with tokens": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"user_defined":true,"end_token":"1","user_defined_files":["x"]}`,
			status: 400, text: ptr("Invalid option combination: Can not provide tokens when using user-defined")},
		"compact user-defined without files": {node: up, method: "POST", target: "/api/v0/ops/tables/compact", body: `{"user_defined":true}`,
			status: 400, text: ptr("Must provide a file if setting userDefined to true")},
		"compact that fails":       {node: with(up(), func(f *fakeNode) { f.opErr = errBoom }), method: "POST", target: "/api/v0/ops/tables/compact", body: `{"keyspace_name":"bench"}`, status: 500, text: ptr("nodetool: boom")},
		"unknown route":            {node: up, method: "GET", target: "/api/v0/ops/keyspace", status: 404, log: "NOT PLAYED: GET /api/v0/ops/keyspace"},
		"unknown version of route": {node: up, method: "POST", target: "/api/v0/ops/node/decommission?force=true", status: 404, log: "NOT PLAYED"},
		"wrong method":             {node: up, method: "POST", target: "/api/v0/ops/node/fullquerylogging?enabled=true", status: 405, log: "NOT PLAYED: POST"},
	}
}

func TestRoutes(t *testing.T) {
	for name, tc := range routeCases() {
		t.Run(name, func(t *testing.T) {
			node := tc.node()
			var log logBuffer
			s := New(node, log.printf)
			defer s.Close()
			if tc.started {
				s.setStartRequested()
			}
			req := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d; body %q; log %q", rec.Code, tc.status, body, log.String())
			}
			if tc.contentType != "" && rec.Header().Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.contentType)
			}
			if tc.text != nil && body != *tc.text {
				t.Errorf("body %q, want %q", body, *tc.text)
			}
			if tc.json != nil {
				var got any
				if err := json.Unmarshal([]byte(body), &got); err != nil {
					t.Fatalf("body %q is not JSON: %v", body, err)
				}
				if d := cmp.Diff(tc.json, got); d != "" {
					t.Errorf("JSON body (-want +got):\n%s", d)
				}
			}
			if tc.jobID && !uuidRE.MatchString(body) {
				t.Errorf("body %q is not a job id (a UUID)", body)
			}
			s.Close() // waits for the jobs, whose calls are then recorded
			if tc.calls != nil {
				if d := cmp.Diff(tc.calls, node.Calls()); d != "" {
					t.Errorf("calls on the node (-want +got):\n%s", d)
				}
			}
			if tc.log != "" && !strings.Contains(log.String(), tc.log) {
				t.Errorf("log %q does not say %q", log.String(), tc.log)
			}
		})
	}
}

// TestCreateRoleStatements checks that a missing role is created with its options and an
// existing one altered, in one statement each (a second password change within 5 s is refused
// by Cassandra 5.0), its password quoted; and that a role this server set to the same options
// already is not altered again, as cass-operator asks on every reconcile.
func TestCreateRoleStatements(t *testing.T) {
	const lookup = "SELECT role FROM system_auth.roles WHERE role = ?"
	const target = "/api/v0/ops/auth/role?username=dc1-superuser&password=it's&is_superuser=true&can_login=true"
	const alter = "ALTER ROLE 'dc1-superuser' WITH PASSWORD = 'it''s' AND SUPERUSER = true AND LOGIN = true"
	for name, tc := range map[string]struct {
		roles   []map[string]any
		targets []string
		want    []string
	}{
		"missing":  {targets: []string{target}, want: []string{lookup, "CREATE ROLE IF NOT EXISTS 'dc1-superuser' WITH PASSWORD = 'it''s' AND SUPERUSER = true AND LOGIN = true"}},
		"existing": {roles: []map[string]any{{"role": "dc1-superuser"}}, targets: []string{target}, want: []string{lookup, alter}},
		"set already": {roles: []map[string]any{{"role": "dc1-superuser"}}, targets: []string{target, target},
			want: []string{lookup, alter, lookup}},
		"another password": {roles: []map[string]any{{"role": "dc1-superuser"}}, targets: []string{target, strings.Replace(target, "it's", "new", 1)},
			want: []string{lookup, alter, lookup, "ALTER ROLE 'dc1-superuser' WITH PASSWORD = 'new' AND SUPERUSER = true AND LOGIN = true"}},
	} {
		node := up()
		node.roles = tc.roles
		s := New(node, t.Logf)
		for _, target := range tc.targets {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("POST", target, nil))
			if rec.Code != 200 {
				t.Errorf("%s: %s answered %d", name, target, rec.Code)
			}
		}
		s.Close()
		if d := cmp.Diff(tc.want, node.queries); d != "" {
			t.Errorf("%s: statements (-want +got):\n%s", name, d)
		}
	}
}

// TestJobLifecycle follows a decommission job from WAITING to COMPLETED, and a failing
// cleanup to ERROR, through the job route, as cass-operator's CassandraTask controller does.
func TestJobLifecycle(t *testing.T) {
	node := up()
	node.block = make(chan struct{})
	s := New(node, t.Logf)
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()

	id := post(t, srv.URL+"/api/v1/ops/node/decommission?force=true", "")
	job := getJob(t, srv.URL, id)
	if job["status"] != "WAITING" || job["end_time"] != "0" || job["error"] != nil || job["type"] != "decommission" || job["id"] != id {
		t.Errorf("running job = %v, want WAITING decommission %s with end_time \"0\" and error null", job, id)
	}
	if _, ok := job["submit_time"].(string); !ok {
		t.Errorf("submit_time = %#v, want a string (ToStringSerializer)", job["submit_time"])
	}
	close(node.block)
	waitJob(t, srv.URL, id, "COMPLETED")

	node.mu.Lock()
	node.opErr, node.block = errBoom, nil
	node.mu.Unlock()
	id = post(t, srv.URL+"/api/v1/ops/keyspace/cleanup", `{"keyspace_name":"bench"}`)
	job = waitJob(t, srv.URL, id, "ERROR")
	if job["error"] != "nodetool: boom" || job["type"] != "CLEANUP" {
		t.Errorf("failed job = %v, want type CLEANUP and error \"nodetool: boom\"", job)
	}
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST %s: %s %s", url, resp.Status, b)
	}
	return string(b)
}

func getJob(t *testing.T, base, id string) map[string]any {
	t.Helper()
	resp, err := http.Get(base + "/api/v0/ops/executor/job?job_id=" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var job map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil || resp.StatusCode != 200 {
		t.Fatalf("job %s: %s, %v", id, resp.Status, err)
	}
	return job
}

func waitJob(t *testing.T, base, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		job := getJob(t, base, id)
		if job["status"] == status {
			if job["end_time"] == "0" {
				t.Errorf("job %s is %s with end_time 0", id, status)
			}
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %v, want %s", id, job["status"], status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRoutesPlayed pins the list of played routes to the list (issue 20) plus
// cassbench's snapshot routes and its disruptions' table routes (issue 36), so that a route
// is neither lost nor added unnoticed.
func TestRoutesPlayed(t *testing.T) {
	want := []string{
		"DELETE /api/v0/ops/node/snapshots",
		"GET /api/v0/metadata/endpoints",
		"GET /api/v0/metadata/versions/features",
		"GET /api/v0/ops/executor/job",
		"GET /api/v0/ops/node/fullquerylogging",
		"GET /api/v0/ops/node/snapshots",
		"GET /api/v0/probes/cluster",
		"GET /api/v0/probes/liveness",
		"GET /api/v0/probes/readiness",
		"POST /api/v0/lifecycle/start",
		"POST /api/v0/ops/auth/role",
		"POST /api/v0/ops/node/drain",
		"POST /api/v0/ops/seeds/reload",
		"POST /api/v0/ops/tables/compact",
		"POST /api/v0/ops/tables/flush",
		"POST /api/v1/ops/keyspace/cleanup",
		"POST /api/v1/ops/node/decommission",
	}
	if d := cmp.Diff(want, New(up(), t.Logf).Routes()); d != "" {
		t.Errorf("routes (-want +got):\n%s", d)
	}
}

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
