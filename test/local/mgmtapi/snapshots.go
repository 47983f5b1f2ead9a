package mgmtapi

import (
	"fmt"
	"net/http"
	"slices"
)

// clearSnapshots: DELETE /api/v0/ops/node/snapshots?snapshotNames=&keyspaces= (openapi.json
// operationId clearSnapshots: 200 "OK"; NodeOpsResources.java clearSnapshots). Both
// parameters repeat; none means all. cassbench's setup calls it after a recreating drop
// (internal/setup/clearsnapshots.go, ManagementAPI).
func (s *Server) clearSnapshots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := clearSnapshotsOf(r.Context(), s.node, q["snapshotNames"], q["keyspaces"]); err != nil {
		s.fail(w, r, err)
		return
	}
	text(w, http.StatusOK, "OK")
}

// snapshots: GET /api/v0/ops/node/snapshots?snapshotNames=&keyspaces= (openapi.json
// operationId getSnapshotDetails: 200, components.schemas.SnapshotDetails: a list of string
// maps under "entity"). The agent (NodeOpsProvider.java getSnapshotDetails) gives one map per
// snapshot and table, keyed by the column names of StorageService's snapshot details table;
// the played one reads system_views.snapshots (Cassandra 5.0), whose sizes are bytes where
// JMX gives them human-readable ("1.2 KiB").
func (s *Server) snapshots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	names, keyspaces := q["snapshotNames"], q["keyspaces"]
	rows, err := s.node.Query(r.Context(), "SELECT name, keyspace_name, table_name, true_size, size_on_disk, created_at, expires_at, ephemeral FROM system_views.snapshots")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := []map[string]string{}
	for _, row := range rows {
		name, ks := str(row["name"]), str(row["keyspace_name"])
		if (len(names) > 0 && !slices.Contains(names, name)) || (len(keyspaces) > 0 && !slices.Contains(keyspaces, ks)) {
			continue
		}
		out = append(out, map[string]string{
			"Snapshot name":      name,
			"Keyspace name":      ks,
			"Column family name": str(row["table_name"]),
			"True size":          str(row["true_size"]),
			"Size on disk":       str(row["size_on_disk"]),
			"Creation time":      str(row["created_at"]),
			"Expiration time":    str(row["expires_at"]),
			"Ephemeral":          str(row["ephemeral"]),
		})
	}
	writeJSON(w, http.StatusOK, entityJSON(out))
}

// str renders a CQL value as the agent renders JMX items: null as "null".
func str(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
