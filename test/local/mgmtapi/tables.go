package mgmtapi

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The table routes cassbench's disruptions call (internal/nodeops), as the real server has
// them in TableOpsResources.java (v0: the operation runs before the answer). Their bodies are
// decoded as Jackson decodes them there: a field left out takes its zero value (the document
// marks some required, but the creators' parameters do not, and cass-operator leaves out
// split_output and user_defined); a body that is not JSON gets JAX-RS's 400.

// compactRequest is components.schemas.CompactRequest of openapi.json.
type compactRequest struct {
	SplitOutput      bool     `json:"split_output"`
	UserDefined      bool     `json:"user_defined"`
	StartToken       string   `json:"start_token"`
	EndToken         string   `json:"end_token"`
	KeyspaceName     string   `json:"keyspace_name"`
	UserDefinedFiles []string `json:"user_defined_files"`
	Tables           []string `json:"tables"`
}

// decodeBody decodes a request's JSON body into v, answering 400 when it is not JSON.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		s.logf("mgmtapi: %s %s answered 400: %v", r.Method, r.URL.RequestURI(), err)
		text(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return false
	}
	return true
}

// orAll is the keyspace an operation runs on: every keyspace when the request names none.
func orAll(keyspace string) string {
	if strings.TrimSpace(keyspace) == "" {
		return allKeyspaces
	}
	return keyspace
}

// flushTables: POST /api/v0/ops/tables/flush (openapi.json operationId flush: 200 "OK";
// errors 500 through BaseResources.handle). TableOpsResources.java flush: no tables means
// every table, no keyspace every keyspace.
func (s *Server) flushTables(w http.ResponseWriter, r *http.Request) {
	var req keyspaceRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if err := flush(r.Context(), s.node, orAll(req.KeyspaceName), req.Tables); err != nil {
		s.fail(w, r, err)
		return
	}
	text(w, http.StatusOK, "OK")
}

// compactTables: POST /api/v0/ops/tables/compact (openapi.json operationId compact: 200 "OK",
// 400 for an invalid option combination). TableOpsResources.java compact checks the options
// as nodetool's Compact does, with the same messages, before it runs anything.
func (s *Server) compactTables(w http.ResponseWriter, r *http.Request) {
	var req compactRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	tokens := strings.TrimSpace(req.StartToken) != "" || strings.TrimSpace(req.EndToken) != ""
	refuse := ""
	switch {
	case req.SplitOutput && (req.UserDefined || tokens):
		refuse = "Invalid option combination: Can not use split-output here"
	case req.UserDefined && tokens:
		refuse = "Invalid option combination: Can not provide tokens when using user-defined"
	case req.UserDefined && len(req.UserDefinedFiles) == 0:
		refuse = "Must provide a file if setting userDefined to true"
	}
	if refuse != "" {
		s.logf("mgmtapi: %s %s answered 400: %s", r.Method, r.URL.RequestURI(), refuse)
		text(w, http.StatusBadRequest, refuse)
		return
	}
	c := compaction{keyspace: orAll(req.KeyspaceName), tables: req.Tables, splitOutput: req.SplitOutput}
	if req.UserDefined {
		c.userDefinedFiles = req.UserDefinedFiles
	} else if tokens {
		c.startToken, c.endToken = req.StartToken, req.EndToken
	}
	if err := compact(r.Context(), s.node, c); err != nil {
		s.fail(w, r, err)
		return
	}
	text(w, http.StatusOK, "OK")
}
