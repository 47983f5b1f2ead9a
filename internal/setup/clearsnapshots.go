package setup

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// SnapshotClearer removes named snapshots of a keyspace from one node. CQL cannot (Cassandra
// 5.0 lists snapshots in system_views.snapshots but has no statement to clear them), so setup
// goes through what the node runs beside Cassandra: the management API on cass-operator pods,
// nodetool on a local cluster.
type SnapshotClearer interface {
	ClearSnapshots(ctx context.Context, node, keyspace string, names []string) error
}

// ManagementAPI clears snapshots through the k8ssandra management API
// (DELETE /api/v0/ops/node/snapshots) on each node's address, the pod IP that the node
// advertises over CQL. cass-operator serves it over plain HTTP on port 8080 unless the
// datacenter sets managementApiAuth.manual (mutual TLS), which this client does not do.
type ManagementAPI struct {
	// Port is the management API's port; 0 means 8080.
	Port   int
	Client *http.Client
}

// ClearSnapshots clears the named snapshots of keyspace on node.
func (m ManagementAPI) ClearSnapshots(ctx context.Context, node, keyspace string, names []string) error {
	port := m.Port
	if port == 0 {
		port = 8080
	}
	client := m.Client
	if client == nil {
		// Clearing unlinks files and answers at once; an API that a network policy hides
		// would otherwise hold setup for long. Setup stops at the first node that fails.
		client = &http.Client{Timeout: 30 * time.Second}
	}
	q := url.Values{"keyspaces": {keyspace}}
	for _, n := range names {
		q.Add("snapshotNames", n)
	}
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(node, strconv.Itoa(port)), Path: "/api/v0/ops/node/snapshots", RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u.String(), nil)
	if err != nil {
		return fmt.Errorf("clearing snapshots on %s: %w", node, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("clearing snapshots on %s through the management API: %w", node, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("clearing snapshots on %s through the management API: %s: %s", node, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// Nodetool clears snapshots by running a nodetool command for the node: Command returns the
// program and its arguments before "clearsnapshot" (for the local cluster,
// hack/cassandra.sh nodetool --node N).
type Nodetool struct {
	Command func(node string) ([]string, error)
}

// ClearSnapshots runs `nodetool clearsnapshot -t NAME -- keyspace` for each name.
func (n Nodetool) ClearSnapshots(ctx context.Context, node, keyspace string, names []string) error {
	prefix, err := n.Command(node)
	if err != nil {
		return err
	}
	for _, name := range names {
		args := append(append([]string{}, prefix[1:]...), "clearsnapshot", "-t", name, "--", keyspace)
		out, err := exec.CommandContext(ctx, prefix[0], args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("clearing snapshot %s of %s on %s: %s: %w: %s", name, keyspace, node, strings.Join(prefix, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// LocalNodetool runs nodetool through script (hack/cassandra.sh), whose node i listens on
// 127.0.0.(offset+i): the cluster's CASSBENCH_CASSANDRA_OFFSET, 0 for the default one.
func LocalNodetool(script string, offset int) Nodetool {
	return Nodetool{Command: func(node string) ([]string, error) {
		ip := net.ParseIP(node).To4()
		if ip == nil || ip[0] != 127 || ip[1] != 0 || ip[2] != 0 || int(ip[3]) <= offset {
			return nil, fmt.Errorf("node %s is not one of %s's nodes (127.0.0.N, N above the offset %d)", node, script, offset)
		}
		return []string{script, "nodetool", "--node", strconv.Itoa(int(ip[3]) - offset)}, nil
	}}
}
