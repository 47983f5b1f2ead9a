package setup

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// node is one Cassandra node as the driver sees it.
type node struct {
	Addr   string
	HostID string
	Up     bool
}

// nodes lists the nodes the cluster knows (system.local and system.peers_v2) with the
// driver's view of whether each is up.
func nodes(ctx context.Context, s *gocql.Session) ([]node, error) {
	known := map[string]node{}
	for _, h := range s.GetHosts() {
		known[h.HostID()] = node{Addr: h.ConnectAddress().String(), HostID: h.HostID(), Up: h.IsUp()}
	}
	// peers_v2 also names nodes the driver has not connected to yet, so a node that never came
	// up is reported as down rather than forgotten.
	iter := s.Query("SELECT host_id, native_address FROM system.peers_v2").IterContext(ctx)
	var id gocql.UUID
	var addr string
	for iter.Scan(&id, &addr) {
		if _, ok := known[id.String()]; !ok {
			known[id.String()] = node{Addr: addr, HostID: id.String()}
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("listing peers: %w", err)
	}
	out := make([]node, 0, len(known))
	for _, n := range known {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out, nil
}

// waitForNodes polls until at least expect nodes are up, or wait has passed.
func waitForNodes(ctx context.Context, s *gocql.Session, expect int32, wait time.Duration) ([]node, error) {
	deadline := time.Now().Add(wait)
	for {
		all, err := nodes(ctx, s)
		var up []node
		if err == nil {
			for _, n := range all {
				if n.Up {
					up = append(up, n)
				}
			}
			if len(up) >= int(max(expect, 1)) {
				return up, nil
			}
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("waiting for %d nodes: %w", expect, err)
			}
			return nil, fmt.Errorf("waited %s for %d nodes to be up: %s", wait, expect, describe(all))
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

func describe(all []node) string {
	var up, down []string
	for _, n := range all {
		if n.Up {
			up = append(up, n.Addr)
		} else {
			down = append(down, n.Addr)
		}
	}
	s := fmt.Sprintf("%d up (%s)", len(up), strings.Join(up, ", "))
	if len(down) > 0 {
		s += fmt.Sprintf(", %d down (%s)", len(down), strings.Join(down, ", "))
	}
	return s
}

// nodeState is what one node reports about itself.
type nodeState struct {
	Version  string
	Settings map[string]string
	// JVMArgs are the JVM's arguments as logged at start, when system_views.system_logs has
	// them; nil otherwise.
	JVMArgs []string
}

// readNode queries a node's own virtual tables: they are node-local, so the query is pinned
// to that host instead of being routed.
func readNode(ctx context.Context, s *gocql.Session, n node, withSettings, withJVM bool) (nodeState, error) {
	var st nodeState
	if err := s.Query("SELECT release_version FROM system.local").SetHostID(n.HostID).ScanContext(ctx, &st.Version); err != nil {
		return st, fmt.Errorf("node %s: reading its version: %w", n.Addr, err)
	}
	if !withSettings {
		return st, nil
	}
	st.Settings = map[string]string{}
	iter := s.Query("SELECT name, value FROM system_views.settings").SetHostID(n.HostID).IterContext(ctx)
	var name string
	var value *string
	for iter.Scan(&name, &value) {
		if value != nil {
			st.Settings[name] = *value
		} else {
			st.Settings[name] = ""
		}
	}
	if err := iter.Close(); err != nil {
		return st, fmt.Errorf("node %s: reading system_views.settings: %w", n.Addr, err)
	}
	if withJVM {
		st.JVMArgs = jvmArgs(ctx, s, n)
	}
	return st, nil
}

// jvmArgs finds Cassandra's "JVM Arguments: [...]" start-up line in the node's
// system_views.system_logs. That table is fed only where logback.xml routes logs to it (and
// exists from 4.1), so any failure just means the arguments are not available.
func jvmArgs(ctx context.Context, s *gocql.Session, n node) []string {
	iter := s.Query("SELECT message FROM system_views.system_logs WHERE level = 'INFO' ALLOW FILTERING").
		SetHostID(n.HostID).PageSize(5000).IterContext(ctx)
	var msg string
	var args []string
	for iter.Scan(&msg) {
		if a, ok := ParseJVMArguments(msg); ok {
			args = a // the last start wins
		}
	}
	if iter.Close() != nil {
		return nil
	}
	return args
}
