package mgmtapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Server is the played management API of one node.
type Server struct {
	node Node
	logf func(format string, args ...any)
	jobs *jobs

	mu             sync.Mutex
	startRequested bool              // the real server's requestedState == STARTED
	roles          map[string]string // role -> the options this server last set it to (createRole)

	routes map[string]map[string]http.HandlerFunc // path, then method
}

// New is the API of node. logf receives one line per request that the real server would
// answer differently than 2xx, and a loud line for every route it does not play.
func New(node Node, logf func(format string, args ...any)) *Server {
	s := &Server{node: node, logf: logf, jobs: newJobs()}
	s.routes = map[string]map[string]http.HandlerFunc{
		"/api/v0/probes/liveness":            {http.MethodGet: s.liveness},
		"/api/v0/probes/readiness":           {http.MethodGet: s.readiness},
		"/api/v0/probes/cluster":             {http.MethodGet: s.clusterHealth},
		"/api/v0/lifecycle/start":            {http.MethodPost: s.start},
		"/api/v0/metadata/versions/features": {http.MethodGet: s.features},
		"/api/v0/metadata/endpoints":         {http.MethodGet: s.endpoints},
		"/api/v0/ops/auth/role":              {http.MethodPost: s.createRole},
		"/api/v0/ops/node/fullquerylogging":  {http.MethodGet: s.fullQueryLogging},
		"/api/v0/ops/seeds/reload":           {http.MethodPost: s.reloadSeeds},
		"/api/v1/ops/keyspace/cleanup":       {http.MethodPost: s.cleanup},
		"/api/v0/ops/executor/job":           {http.MethodGet: s.job},
		"/api/v1/ops/node/decommission":      {http.MethodPost: s.decommission},
		"/api/v0/ops/node/drain":             {http.MethodPost: s.drain},
		"/api/v0/ops/node/snapshots":         {http.MethodGet: s.snapshots, http.MethodDelete: s.clearSnapshots},
		"/api/v0/ops/tables/flush":           {http.MethodPost: s.flushTables},
		"/api/v0/ops/tables/compact":         {http.MethodPost: s.compactTables},
	}
	return s
}

// Routes lists the played routes as "METHOD path", sorted.
func (s *Server) Routes() []string {
	var out []string
	for path, methods := range s.routes {
		for m := range methods {
			out = append(out, m+" "+path)
		}
	}
	sort.Strings(out)
	return out
}

// Close stops the jobs still running (a decommission or cleanup) and waits for them.
func (s *Server) Close() { s.jobs.close() }

// ServeHTTP dispatches on the exact path and method. The real server (JAX-RS) answers 404
// for a path it does not have and 405 for a method a path does not take.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		s.logf("mgmtapi: NOT PLAYED: %s %s answered 404: the played management API has no such route; if cass-operator needs it, add it to test/local/mgmtapi", r.Method, r.URL.RequestURI())
		http.Error(w, "not played: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	h, ok := methods[r.Method]
	if !ok {
		s.logf("mgmtapi: NOT PLAYED: %s %s answered 405: the played route takes only %s", r.Method, r.URL.RequestURI(), strings.Join(keys(methods), ", "))
		w.Header().Set("Allow", strings.Join(keys(methods), ", "))
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h(w, r)
}

func keys(m map[string]http.HandlerFunc) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *Server) setStartRequested() {
	s.mu.Lock()
	s.startRequested = true
	s.mu.Unlock()
}

func (s *Server) wasStartRequested() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startRequested
}

// text answers a text/plain body, as the resources that @Produces(TEXT_PLAIN) do.
func text(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		text(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// fail answers an error as the real server's BaseResources.handle does: 500 with the
// message, or "Internal connection to Cassandra closed" when Cassandra cannot be reached.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	msg := err.Error()
	if errors.Is(err, ErrUnreachable) {
		msg = "Internal connection to Cassandra closed"
	}
	s.logf("mgmtapi: %s %s answered 500: %v", r.Method, r.URL.RequestURI(), err)
	text(w, http.StatusInternalServerError, msg)
}

// badParam answers a query parameter that does not convert to its declared type: JAX-RS
// answers 404 for it (JAX-RS 2.1 §3.2: a @QueryParam that cannot be converted gives
// NotFoundException), not 400.
func (s *Server) badParam(w http.ResponseWriter, r *http.Request, name, value, kind string) {
	s.logf("mgmtapi: %s %s answered 404: query parameter %s=%q is not a %s", r.Method, r.URL.RequestURI(), name, value, kind)
	text(w, http.StatusNotFound, fmt.Sprintf("query parameter %s=%q is not a %s", name, value, kind))
}

// background is the context jobs run under: they outlive the request that started them.
func (s *Server) background() context.Context { return s.jobs.ctx }
