package mgmtapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// liveness: GET /api/v0/probes/liveness (openapi.json operationId checkLiveness: 200 "OK").
// The document lists 200 alone, but K8OperatorResources.java checkLiveness answers 500 once
// a start was requested and the process is gone, which is what makes the kubelet restart a
// crashed node's container.
func (s *Server) liveness(w http.ResponseWriter, r *http.Request) {
	if s.wasStartRequested() && !s.node.Running() {
		s.logf("mgmtapi: %s %s answered 500: Cassandra was started and its process is gone", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	text(w, http.StatusOK, "OK")
}

// readiness: GET /api/v0/probes/readiness (openapi.json operationId checkReadiness: 200 "OK",
// 500 without a body). K8OperatorResources.java checkReadiness: ready once system.local says
// the node bootstrapped (COMPLETED) and answers CQL.
func (s *Server) readiness(w http.ResponseWriter, r *http.Request) {
	rows, err := s.node.Query(r.Context(), "SELECT bootstrapped FROM system.local WHERE key = 'local'")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(rows) == 0 || !strings.EqualFold(fmt.Sprint(rows[0]["bootstrapped"]), "COMPLETED") {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	text(w, http.StatusOK, "OK")
}

// start: POST /api/v0/lifecycle/start (openapi.json operationId startNode: 201 started, 202
// running and answering, 204 running but not answering, 206 not running but answering, 400
// bad parameters, 420 could not start, 500 error). Order and messages follow
// LifecycleResources.java startNode.
func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, qerr := s.node.Query(ctx, "SELECT peer FROM system.peers")
	canConnect := qerr == nil
	switch {
	case s.node.Running() && canConnect:
		w.WriteHeader(http.StatusAccepted)
		return
	case s.node.Running():
		w.WriteHeader(http.StatusNoContent)
		return
	case canConnect:
		w.WriteHeader(http.StatusPartialContent)
		return
	}
	q := r.URL.Query()
	replaceIP := q.Get("replace_ip")
	if q.Has("replace_ip") {
		if ip := net.ParseIP(replaceIP); ip == nil || ip.To4() == nil {
			text(w, http.StatusBadRequest, "Invalid replace IP passed: "+replaceIP)
			return
		}
	}
	if q.Get("replace_consistency") != "" {
		text(w, http.StatusBadRequest, "Consistency parameter for replace is only accepted with DSE")
		return
	}
	if q.Has("profile") {
		// A profile points the node at /tmp/<profile>/cassandra.yaml; cass-operator never
		// sends one, and the played node has no such files.
		s.logf("mgmtapi: NOT PLAYED: %s %s: the profile parameter", r.Method, r.URL.RequestURI())
		text(w, http.StatusBadRequest, "profile is not played")
		return
	}
	// The start outlives the request: the operator's call may time out, the node must not.
	if err := s.node.Start(s.background(), replaceIP); err != nil {
		s.logf("mgmtapi: %s %s answered 420: %v", r.Method, r.URL.RequestURI(), err)
		text(w, 420, "Error starting Cassandra")
		return
	}
	s.setStartRequested()
	text(w, http.StatusCreated, "OK\n")
}

// drain: POST /api/v0/ops/node/drain (openapi.json operationId drain: 200 "OK"; errors 500
// through BaseResources.handle). The real one answers 200 also when the drain closes its
// connection (NodeOpsResources.java drain).
func (s *Server) drain(w http.ResponseWriter, r *http.Request) {
	if err := drain(r.Context(), s.node); err != nil {
		s.fail(w, r, err)
		return
	}
	text(w, http.StatusOK, "OK")
}

// decommission: POST /api/v1/ops/node/decommission?force= (openapi.json operationId
// decommission_v1: 202 with the job id as text/plain). v1/NodeOpsResources.java decommission
// submits job type "decommission" (NodeOpsProvider.java) and returns at once; cass-operator
// then watches the node leave through /metadata/endpoints (STATUS LEAVING, then LEFT).
func (s *Server) decommission(w http.ResponseWriter, r *http.Request) {
	force := queryBool(r, "force")
	id := s.jobs.submit("decommission", func(ctx context.Context) error { return decommission(ctx, s.node, force) })
	text(w, http.StatusAccepted, id)
}

// queryBool reads a boolean query parameter as JAX-RS converts one, with Java's
// Boolean.valueOf: "true" in any case is true, anything else (absent included) is false.
func queryBool(r *http.Request, name string) bool {
	return strings.EqualFold(r.URL.Query().Get(name), "true")
}
