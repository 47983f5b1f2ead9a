package mgmtapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// allFeatures is what the real server advertises: every FeatureSet.Feature, in declaration
// order (models/FeatureSet.java; MetadataResources.java getFeatureSet builds the set with
// all of them). cass-operator picks the async v1 decommission and cleanup on
// async_sstable_tasks, host ids by IS_LOCAL on async_flush_task, and asks
// /ops/node/fullquerylogging on full_query_logging.
var allFeatures = []string{
	"async_sstable_tasks", "full_query_logging", "rebuild", "async_upgrade_sstable_task",
	"async_compaction_task", "async_scrub_task", "async_move_task", "async_gc_task",
	"reload_internode_truststore", "async_flush_task",
}

// features: GET /api/v0/metadata/versions/features (openapi.json operationId getFeatureSet:
// 200, components.schemas.FeatureSet: cassandra_version, mgmt_version, features). The
// operator's FeatureSet.UnmarshalJSON (client.go) panics without cassandra_version.
func (s *Server) features(w http.ResponseWriter, r *http.Request) {
	rows, err := s.node.Query(r.Context(), "SELECT release_version FROM system.local WHERE key = 'local'")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(rows) == 0 {
		s.fail(w, r, fmt.Errorf("system.local has no row"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"cassandra_version": fmt.Sprint(rows[0]["release_version"]),
		"mgmt_version":      "", // MetadataResources.java: not in the release packages either
		"features":          allFeatures,
	})
}

// endpoints: GET /api/v0/metadata/endpoints (openapi.json operationId getEndpointStates: 200,
// components.schemas.EndpointStates: the list under "entity", one string map per endpoint).
// cass-operator reads HOST_ID, STATUS/STATUS_WITH_PORT, LOAD (bytes, parsed as a float),
// IS_ALIVE, IS_LOCAL, ENDPOINT_IP, NATIVE_ADDRESS_AND_PORT, RPC_ADDRESS and DC.
func (s *Server) endpoints(w http.ResponseWriter, r *http.Request) {
	eps, err := s.node.Endpoints(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if eps == nil {
		eps = []map[string]string{}
	}
	writeJSON(w, http.StatusOK, entityJSON(eps))
}

// clusterHealth: GET /api/v0/probes/cluster?consistency_level=&rf_per_dc= (openapi.json
// operationId checkClusterConsistency: 200 without a body when the consistency level can be
// met, 500 with a JSON map of range to problems when not). Defaults LOCAL_QUORUM and 3, as
// K8OperatorResources.java checkClusterConsistency has them; see checkConsistency for how
// ranges are judged.
func (s *Server) clusterHealth(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cl := q.Get("consistency_level")
	if !q.Has("consistency_level") {
		cl = "LOCAL_QUORUM"
	}
	rf := 3
	if v := q.Get("rf_per_dc"); q.Has("rf_per_dc") {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			s.badParam(w, r, "rf_per_dc", v, "32-bit integer")
			return
		}
		rf = int(n)
	}
	eps, err := s.node.Endpoints(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	problems, err := checkConsistency(cl, rf, eps)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(problems) == 0 {
		w.WriteHeader(http.StatusOK)
		return
	}
	s.logf("mgmtapi: %s %s answered 500: %v", r.Method, r.URL.RequestURI(), problems)
	writeJSON(w, http.StatusInternalServerError, problems)
}

// createRole: POST /api/v0/ops/auth/role?username=&is_superuser=&can_login=&password=
// (openapi.json operationId createRole: 200 "OK", 400 "Username is empty" / "Password is
// empty"). AuthResources.java createRole; the agent creates the role through the role manager
// as the system user, which overwrites a role that exists (CassandraRoleManager.createRole,
// an INSERT), so the played one creates it with its options if missing and sets them if not.
//
// cass-operator v1.31 upserts its users on every pass of its rack reconcile (CreateUsers,
// reconcile_racks.go), and a failed upsert ends the pass before Ready is set. The agent's
// overwrite always succeeds; an ALTER ROLE that changes the password again within 5 s is
// refused by Cassandra 5.0 (CassandraRoleManager.enforcePasswordUpdateRateLimit, which only
// alterRole calls), and answering that with 500 had cass-operator retry every second or so. So
// a role this server already set to the same options is left as it is: the overwrite would
// write the same values (a fresh salt aside).
func (s *Server) createRole(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, password := q.Get("username"), q.Get("password")
	if strings.TrimSpace(name) == "" {
		text(w, http.StatusBadRequest, "Username is empty")
		return
	}
	if strings.TrimSpace(password) == "" {
		text(w, http.StatusBadRequest, "Password is empty")
		return
	}
	opts := fmt.Sprintf("PASSWORD = %s AND SUPERUSER = %t AND LOGIN = %t", cqlString(password), queryBool(r, "is_superuser"), queryBool(r, "can_login"))
	rows, err := s.node.Query(r.Context(), "SELECT role FROM system_auth.roles WHERE role = ?", name)
	if err != nil {
		s.fail(w, r, fmt.Errorf("creating role %s: %w", name, err))
		return
	}
	s.mu.Lock()
	set := s.roles[name] == opts
	s.mu.Unlock()
	if len(rows) > 0 && set {
		text(w, http.StatusOK, "OK")
		return
	}
	// A new role is created with its options in one statement: an ALTER right after would
	// change its password again, which Cassandra 5.0 refuses within 5 s of the last change.
	stmt := "CREATE ROLE IF NOT EXISTS " + cqlString(name) + " WITH " + opts
	if len(rows) > 0 {
		stmt = "ALTER ROLE " + cqlString(name) + " WITH " + opts
	}
	if _, err := s.node.Query(r.Context(), stmt); err != nil {
		s.fail(w, r, fmt.Errorf("creating role %s: %w", name, err))
		return
	}
	s.mu.Lock()
	if s.roles == nil {
		s.roles = map[string]string{}
	}
	s.roles[name] = opts
	s.mu.Unlock()
	text(w, http.StatusOK, "OK")
}

// cqlString quotes s as a CQL string literal. Role options take literals, not bind markers.
func cqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// fullQueryLogging: GET /api/v0/ops/node/fullquerylogging (openapi.json operationId
// isFullQueryLogEnabled: 200, the boolean under "entity", as its example shows). The played
// node never runs full query logging; enabling it (POST) is not played, so a datacenter that
// asks for it fails loudly rather than silently.
func (s *Server) fullQueryLogging(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, entityJSON(false))
}

// reloadSeeds: POST /api/v0/ops/seeds/reload (openapi.json operationId seedReload: 200, the
// new seed list as a JSON array; K8OperatorResources.java seedReload).
func (s *Server) reloadSeeds(w http.ResponseWriter, r *http.Request) {
	seeds, err := reloadSeeds(r.Context(), s.node)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if seeds == nil {
		seeds = []string{}
	}
	writeJSON(w, http.StatusOK, seeds)
}

// keyspaceRequest is components.schemas.KeyspaceRequest of openapi.json.
type keyspaceRequest struct {
	Jobs         lenientInt `json:"jobs"`
	KeyspaceName string     `json:"keyspace_name"`
	Tables       []string   `json:"tables"`
}

// cleanup: POST /api/v1/ops/keyspace/cleanup (openapi.json operationId cleanup_v1: 200 "OK"
// for system and system_schema, else 202 with the job id). v1/KeyspaceOpsResources.java
// cleanup: no keyspace means NON_LOCAL_STRATEGY; the job type is CLEANUP (NodeOpsProvider.java
// forceKeyspaceCleanup). A body that is not JSON gets JAX-RS's 400.
func (s *Server) cleanup(w http.ResponseWriter, r *http.Request) {
	var req keyspaceRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	ks := req.KeyspaceName
	if strings.TrimSpace(ks) == "" {
		ks = NonLocalStrategy
	}
	if strings.EqualFold(ks, "system") || strings.EqualFold(ks, "system_schema") {
		text(w, http.StatusOK, "OK")
		return
	}
	tables := append([]string{}, req.Tables...)
	id := s.jobs.submit("CLEANUP", func(ctx context.Context) error { return cleanup(ctx, s.node, ks, tables, int(req.Jobs)) })
	text(w, http.StatusAccepted, id)
}

// job: GET /api/v0/ops/executor/job?job_id= (openapi.json operationId getJobStatus: 200 Job,
// 404 when there is no such job, with an empty map as its body, as
// K8OperatorResources.java getJobStatus answers; cass-operator takes 404 as "not found").
func (s *Server) job(w http.ResponseWriter, r *http.Request) {
	v, ok := s.jobs.get(r.URL.Query().Get("job_id"))
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{})
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// lenientInt decodes a JSON number or a string holding one, as Jackson's default scalar
// coercion does: cass-operator sends "jobs" as a string (client.go createKeySpaceRequest:
// strconv.Itoa(jobs)).
type lenientInt int

func (n *lenientInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return fmt.Errorf("jobs: %s is not an integer", b)
	}
	*n = lenientInt(v)
	return nil
}
