package mgmtapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/localcassandra"
)

// LocalNode is node Index of a cluster that internal/localcassandra runs on 127.0.0.x: the
// real work behind the played API. CQL goes to the node alone as a superuser; what the real
// agent does through StorageService (drain, decommission, cleanup, seeds, snapshots) goes
// through nodetool over JMX.
type LocalNode struct {
	Index int
	// Cluster is the cluster to drive, its commands logging to log. A caller that holds
	// users.lock for the whole test (test/local) returns one with UsersLockHeld set.
	Cluster func(log io.Writer) *localcassandra.Cluster
	// Start holds the options a start passes to the node (Timeout, Heap, Sets, JVMOpts);
	// Node is set from Index.
	StartOptions localcassandra.Options
	// Username and Password log in to CQL; the real agent needs none (unix socket).
	Username, Password string
	Logf               func(format string, args ...any)
	// BeforeStart, when set, runs before each start, with the node stopped: where a pod's
	// container prepares the node's files (a fresh volume, the rendered settings).
	BeforeStart func() error

	liveness Liveness
	mu       sync.Mutex
	session  *gocql.Session
	starting chan error // the running start, nil when none
}

func (n *LocalNode) layout() localcassandra.Layout { return n.Cluster(io.Discard).Layout }

func (n *LocalNode) ip() string { return n.layout().NodeIP(n.Index) }

// Running tells whether the node's JVM runs.
func (n *LocalNode) Running() bool { return n.layout().PID(n.Index) != 0 }

// JVM is where the node's figures are: localcassandra's node directory holds its gc log
// (logs/gc.log), data and hints.
func (n *LocalNode) JVM() JVM {
	l := n.layout()
	dir := l.NodeDir(n.Index)
	return JVM{PID: l.PID(n.Index), GCLog: filepath.Join(dir, "logs", "gc.log"), Data: []string{filepath.Join(dir, "data")}, Hints: filepath.Join(dir, "hints")}
}

// launchWait bounds how long Start waits for the JVM to show after it was asked for.
const launchWait = 60 * time.Second

// Start starts the node (localcassandra's Restart, which keeps its data) in the background
// and returns once its JVM runs. The restart goes on waiting for CQL and the ring; its
// outcome is logged, and the operator sees it through the readiness probe, as with the real
// server.
func (n *LocalNode) Start(ctx context.Context, replaceIP string) error {
	o := n.StartOptions
	o.Node = n.Index
	if o.Timeout == 0 {
		o.Timeout = localcassandra.DefaultOptions().Timeout
	}
	if replaceIP != "" {
		o.JVMOpts = append(append([]string{}, o.JVMOpts...), "-Dcassandra.replace_address_first_boot="+replaceIP)
	}
	n.mu.Lock()
	if n.starting != nil {
		n.mu.Unlock()
		return fmt.Errorf("node %d: a start is under way", n.Index)
	}
	done := make(chan error, 1)
	n.starting = done
	n.mu.Unlock()
	if n.BeforeStart != nil {
		if err := n.BeforeStart(); err != nil {
			n.mu.Lock()
			n.starting = nil
			n.mu.Unlock()
			return fmt.Errorf("node %d: preparing the start: %w", n.Index, err)
		}
	}
	go func() {
		var log bytes.Buffer
		err := n.Cluster(&log).Restart(ctx, o)
		if err != nil {
			err = fmt.Errorf("starting node %d: %w\n%s", n.Index, err, log.String())
		}
		n.logf("mgmtapi: node %d: start finished: %v", n.Index, err)
		n.mu.Lock()
		n.starting = nil
		n.mu.Unlock()
		done <- err
	}()
	deadline := time.NewTimer(launchWait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			return nil
		case <-tick.C:
			if n.Running() {
				return nil
			}
		case <-deadline.C:
			return fmt.Errorf("node %d: no JVM %s after the start", n.Index, launchWait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (n *LocalNode) logf(format string, args ...any) {
	if n.Logf != nil {
		n.Logf(format, args...)
	}
}

// Query runs stmt on this node alone. A node that does not answer gives ErrUnreachable.
func (n *LocalNode) Query(ctx context.Context, stmt string, values ...any) ([]map[string]any, error) {
	s, err := n.sessionFor()
	if err != nil {
		return nil, err
	}
	rows, err := s.Query(stmt, values...).IterContext(ctx).SliceMap()
	if err != nil {
		n.dropSession(s)
		return nil, fmt.Errorf("node %d: %s: %w", n.Index, stmt, err)
	}
	return rows, nil
}

// sessionFor is a session to this node alone, kept while it works: the operator polls the
// probes every few seconds, and a login per request would cost a bcrypt each.
func (n *LocalNode) sessionFor() (*gocql.Session, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.session != nil {
		return n.session, nil
	}
	cfg := gocql.NewCluster(n.ip())
	cfg.NumConns = 1
	cfg.Timeout = 10 * time.Second
	cfg.ConnectTimeout = 2 * time.Second
	cfg.DisableInitialHostLookup = true
	cfg.HostFilter = gocql.WhiteListHostFilter(n.ip())
	cfg.Events.DisableTopologyEvents = true
	cfg.Events.DisableSchemaEvents = true
	cfg.Logger = silent{}
	if n.Username != "" {
		cfg.Authenticator = gocql.PasswordAuthenticator{Username: n.Username, Password: n.Password}
	}
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("node %d at %s: %w: %w", n.Index, n.ip(), err, ErrUnreachable)
	}
	n.session = s
	return s, nil
}

func (n *LocalNode) dropSession(s *gocql.Session) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.session == s {
		n.session.Close()
		n.session = nil
	}
}

// Close closes the CQL session.
func (n *LocalNode) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.session != nil {
		n.session.Close()
		n.session = nil
	}
}

// Endpoints reads system_views.gossip_info on this node (Cassandra 5.0).
func (n *LocalNode) Endpoints(ctx context.Context) ([]map[string]string, error) {
	local, err := n.Query(ctx, "SELECT cluster_name, partitioner FROM system.local WHERE key = 'local'")
	if err != nil {
		return nil, err
	}
	if len(local) == 0 {
		return nil, errors.New("system.local has no row")
	}
	rows, err := n.Query(ctx, "SELECT * FROM system_views.gossip_info")
	if err != nil {
		return nil, err
	}
	return EndpointsFromGossip(rows, n.ip(), str(local[0]["partitioner"]), str(local[0]["cluster_name"]), n.liveness.Alive), nil
}

// Nodetool runs nodetool on this node through localcassandra.
func (n *LocalNode) Nodetool(ctx context.Context, args ...string) (string, error) {
	var out bytes.Buffer
	if err := n.Cluster(io.Discard).Nodetool(ctx, n.Index, &out, &out, args...); err != nil {
		return out.String(), fmt.Errorf("node %d: nodetool %v: %w: %s", n.Index, args, err, bytes.TrimSpace(out.Bytes()))
	}
	return out.String(), nil
}

var _ Node = (*LocalNode)(nil)

// silent drops the driver's log: a starting node refuses connections many times, as expected.
type silent struct{}

func (silent) Error(string, ...gocql.LogField)   {}
func (silent) Warning(string, ...gocql.LogField) {}
func (silent) Info(string, ...gocql.LogField)    {}
func (silent) Debug(string, ...gocql.LogField)   {}
