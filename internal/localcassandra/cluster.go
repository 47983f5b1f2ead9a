package localcassandra

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrOtherOptions is returned by Start when nodes run with other options and Reset is off.
var ErrOtherOptions = errors.New("the cluster runs with other options")

// usersLockWait bounds how long a command waits for the processes that use the cluster.
const usersLockWait = 30 * time.Minute

// Cluster runs the nodes of one Layout. Its methods are not safe for concurrent use; other
// processes are kept out by the lock files.
type Cluster struct {
	Layout
	// Log receives progress lines ("cassandra: ..."); nil discards them.
	Log io.Writer
	// UsersLockHeld says that the caller holds users.lock (shared or exclusively): commands
	// that stop or replace nodes must not wait for it. Processes that use the cluster hold
	// it shared for their whole life; commands that stop nodes take it exclusively first,
	// so that they wait for those processes instead of pulling the cluster from under them.
	UsersLockHeld bool

	started map[int]startedNode // the nodes the current call started, by node
}

// startedNode is the JVM of a node the current call started.
type startedNode struct {
	pid int
	// exited is closed once the JVM has exited and been reaped.
	exited <-chan struct{}
}

// New is a cluster of the default layout (see DefaultLayout) logging to log.
func New(log io.Writer) *Cluster { return &Cluster{Layout: DefaultLayout(), Log: log} }

func (c *Cluster) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "cassandra: "+format+"\n", args...)
	}
}

// lockUsers takes users.lock exclusively unless the caller holds it or force is set; the
// returned function releases it.
func (c *Cluster) lockUsers(ctx context.Context, force bool) (func(), error) {
	if c.UsersLockHeld || force {
		return func() {}, nil
	}
	l, err := OpenLock(c.LockPath("users.lock"))
	if err != nil {
		return nil, err
	}
	err = l.Wait(ctx, Exclusive, usersLockWait, func() {
		c.logf("waiting for test processes using the cluster to exit (they hold %s; --force skips this)", l.Name())
	})
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	return func() { _ = l.Close() }, nil
}

// lockScript serialises the commands that change nodes.
func (c *Cluster) lockScript(ctx context.Context) (func(), error) {
	l, err := OpenLock(c.LockPath(".script.lock"))
	if err != nil {
		return nil, err
	}
	if err := l.Wait(ctx, Exclusive, usersLockWait, nil); err != nil {
		_ = l.Close()
		return nil, err
	}
	return func() { _ = l.Close() }, nil
}

// lockForChange takes users.lock (see lockUsers) and then the script lock, as every command
// that stops nodes does; the returned function releases both.
func (c *Cluster) lockForChange(ctx context.Context, force bool) (func(), error) {
	unlockUsers, err := c.lockUsers(ctx, force)
	if err != nil {
		return nil, err
	}
	unlock, err := c.lockScript(ctx)
	if err != nil {
		unlockUsers()
		return nil, err
	}
	return func() { unlock(); unlockUsers() }, nil
}

func (c *Cluster) clusterConfPath() string { return filepath.Join(c.Nodes(), "cluster.conf") }

// ClusterConf is the text of nodes/cluster.conf ("" when no cluster was started).
func (c *Cluster) ClusterConf() string { return readText(c.clusterConfPath()) }

// hasNodesBeyond tells whether a node above n has a directory: data of a larger cluster.
func (c *Cluster) hasNodesBeyond(n int) bool {
	known := c.KnownNodes()
	return len(known) > 0 && known[len(known)-1] > n
}

// Check tells whether the stored cluster options equal o.
func (c *Cluster) Check(o Options) bool { return o.ConfText(c.Version) == c.ClusterConf() }

// Start makes the cluster of o run: a no-op when it runs already with these options (stopped
// nodes are started again, keeping their data); a larger Nodes with otherwise equal options
// adds nodes (they bootstrap). Other options while nodes run fail with ErrOtherOptions unless
// o.Reset, which wipes the cluster first. Fresh nodes get evenly interleaved initial_token
// values, so that nodes 2..N bootstrap concurrently and ownership is balanced.
func (c *Cluster) Start(ctx context.Context, o Options) error {
	if o.Node != 0 {
		return fmt.Errorf("start takes --nodes; use restart --node i for one node")
	}
	c.started = nil
	if err := c.Fetch(ctx); err != nil {
		return err
	}
	want := o.ConfText(c.Version)
	// A reset also wipes the data of nodes beyond o.Nodes that a larger cluster left: the
	// nodes started would wait for them as down peers (schema agreement, role setup).
	reset := o.Reset && (want != c.ClusterConf() || c.hasNodesBeyond(o.Nodes))
	if reset {
		unlock, err := c.lockUsers(ctx, o.Force)
		if err != nil {
			return err
		}
		defer unlock()
	}
	unlock, err := c.lockScript(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	t0 := time.Now()
	deadline := t0.Add(o.Timeout)
	have := c.ClusterConf()
	running := c.RunningNodes()
	haveNodes, _ := strconv.Atoi(confValue(have, "nodes"))
	switch {
	case want != have && haveNodes > 0 && haveNodes < o.Nodes && withoutNodes(want) == withoutNodes(have):
		c.logf("growing the cluster from %d to %d node(s)", haveNodes, o.Nodes)
	case reset:
		switch {
		case want == have:
			c.logf("nodes beyond %d hold the data of a larger cluster: wiping", o.Nodes)
		case have != "":
			c.logf("cluster options changed: wiping")
		}
		if err := c.wipe(); err != nil {
			return err
		}
	case want != have && len(running) > 0:
		return fmt.Errorf("%w: nodes %s run; stop or wipe first, or pass --reset\n--- running with:\n%s\n--- requested:\n%s",
			ErrOtherOptions, ints(running), have, want)
	case want != have:
		if haveNodes > o.Nodes {
			c.logf("warning: data of a %d-node cluster is kept; nodes %d..%d will show as down (use wipe or --reset)", haveNodes, o.Nodes+1, haveNodes)
		}
		confs, _ := filepath.Glob(filepath.Join(c.Nodes(), "node*", "node.conf"))
		for _, f := range confs {
			_ = os.Remove(f)
		}
	}
	if err := os.MkdirAll(c.Nodes(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(c.clusterConfPath(), []byte(want+"\n"), 0o644); err != nil {
		return err
	}
	for i := 1; i <= o.Nodes; i++ {
		if err := c.checkLoopback(i); err != nil {
			return err
		}
	}
	var todo []int
	for i := 1; i <= o.Nodes; i++ {
		if !c.Running(i) {
			todo = append(todo, i)
		}
	}
	started := len(todo)
	if started == 0 {
		c.logf("already running: %d node(s)", o.Nodes)
	} else {
		c.logf("starting node(s) %s of %d (Cassandra %s, heap %s)", ints(todo), o.Nodes, c.Version, o.Heap)
		// Node 1 is the seed: the others join through it.
		if todo[0] == 1 {
			if err := c.startProcess(1); err != nil {
				return err
			}
			if err := c.waitCQL(ctx, deadline, t0, o.Timeout, 1); err != nil {
				return err
			}
			todo = todo[1:]
		}
		for _, i := range todo {
			if err := c.startProcess(i); err != nil {
				return err
			}
		}
		if err := c.waitCQL(ctx, deadline, t0, o.Timeout, todo...); err != nil {
			return err
		}
	}
	if started == 0 {
		all := make([]int, o.Nodes)
		for i := range all {
			all[i] = i + 1
		}
		if err := c.waitCQL(ctx, deadline, t0, o.Timeout, all...); err != nil {
			return err
		}
	} else if err := c.waitRing(ctx, deadline, o.Timeout); err != nil {
		// A cluster brought up before was checked then: only new nodes pay for the
		// (JVM-costly) ring check.
		return err
	}
	if err := c.waitAuth(ctx, deadline, o.Timeout); err != nil {
		return err
	}
	hosts := make([]string, o.Nodes)
	for i := range hosts {
		hosts[i] = c.NodeIP(i + 1)
	}
	c.logf("cluster up in %ds: hosts %s port %d", int(time.Since(t0).Seconds()), strings.Join(hosts, " "), CQLPort)
	return nil
}

func withoutNodes(conf string) string {
	var keep []string
	for _, line := range strings.Split(conf, "\n") {
		if !strings.HasPrefix(line, "nodes=") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// waitAuth waits until the default superuser can log in on node 1 of an --auth cluster.
func (c *Cluster) waitAuth(ctx context.Context, deadline time.Time, timeout time.Duration) error {
	if confValue(c.ClusterConf(), "auth") != "1" {
		return nil
	}
	for c.probe(ctx, 1, "cassandra", "cassandra") != nil {
		if time.Now().After(deadline) {
			return c.nodeFailure(1, fmt.Sprintf("does not accept cassandra/cassandra within %ds", int(timeout.Seconds())))
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	c.logf("superuser cassandra/cassandra can log in")
	was, is, err := rehashSuperuser(ctx, c.NodeIP(1), CQLPort, "cassandra", "cassandra")
	switch {
	case err != nil:
		return err
	case is != fmt.Sprintf("%02d", loginRounds):
		// Nodes started by an earlier version of this package hash at Cassandra's default.
		c.logf("warning: the superuser's password is hashed at bcrypt cost %s, and every login pays for it: the nodes run without -Dcassandra.auth_bcrypt_gensalt_log2_rounds=%d; restart them", is, loginRounds)
	case was != is:
		// The nodes cache the hash a login checks against, not the outcome: the old one would
		// be checked for credentials_validity yet.
		for _, i := range c.RunningNodes() {
			var out bytes.Buffer
			if err := c.Nodetool(ctx, i, &out, &out, "invalidatecredentialscache"); err != nil {
				return fmt.Errorf("node %d: nodetool invalidatecredentialscache: %w: %s", i, err, out.String())
			}
		}
		c.logf("superuser password hashed again at bcrypt cost %s (was %s), as a new cluster's is", is, was)
	}
	return nil
}

// checkLoopback fails unless node i's address is one of this machine's.
func (c *Cluster) checkLoopback(i int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(c.NodeIP(i), "0"))
	if err != nil {
		return fmt.Errorf("%s is not an address of this machine; add it (ip addr add %s/8 dev lo): %w", c.NodeIP(i), c.NodeIP(i), err)
	}
	return ln.Close()
}

// beginChange fetches the distribution and takes the lock a change of the cluster holds; the
// caller releases it.
func (c *Cluster) beginChange(ctx context.Context, force bool) (func(), error) {
	c.started = nil
	if err := c.Fetch(ctx); err != nil {
		return nil, err
	}
	return c.lockForChange(ctx, force)
}

// Configure records the cluster of o (its size and options) with every node stopped and none
// started: the nodes are then started one at a time with Restart, as a Kubernetes operator
// starts its pods' nodes. A cluster of other options is wiped first; so is every node when
// o.Reset.
func (c *Cluster) Configure(ctx context.Context, o Options) error {
	if o.Node != 0 {
		return fmt.Errorf("configure takes --nodes, not --node")
	}
	unlock, err := c.beginChange(ctx, o.Force)
	if err != nil {
		return err
	}
	defer unlock()
	want := o.ConfText(c.Version)
	if o.Reset || want != c.ClusterConf() {
		if err := c.wipe(); err != nil {
			return err
		}
	} else {
		c.stopNodes(false, c.KnownNodes()...)
	}
	if err := os.MkdirAll(c.Nodes(), 0o755); err != nil {
		return err
	}
	for i := 1; i <= o.Nodes; i++ {
		if err := c.checkLoopback(i); err != nil {
			return err
		}
	}
	c.logf("configured a %d-node cluster (Cassandra %s); no node started", o.Nodes, c.Version)
	return os.WriteFile(c.clusterConfPath(), []byte(want+"\n"), 0o644)
}

// Stop stops node o.Node, or every node when it is 0: gracefully, or with SIGKILL when o.Kill.
// It first waits until no process uses the cluster (users.lock) unless o.Force.
func (c *Cluster) Stop(ctx context.Context, o Options) error {
	unlock, err := c.lockForChange(ctx, o.Force)
	if err != nil {
		return err
	}
	defer unlock()
	if o.Node != 0 {
		c.stopNodes(o.Kill, o.Node)
	} else {
		c.stopNodes(o.Kill, c.KnownNodes()...)
	}
	return nil
}

// Wipe stops every node and deletes the node directories.
func (c *Cluster) Wipe(ctx context.Context, o Options) error {
	unlock, err := c.lockForChange(ctx, o.Force)
	if err != nil {
		return err
	}
	defer unlock()
	if err := c.wipe(); err != nil {
		return err
	}
	c.logf("wiped %s", c.Nodes())
	return nil
}

func (c *Cluster) wipe() error {
	c.stopNodes(false, c.KnownNodes()...)
	return os.RemoveAll(c.Nodes())
}

// Restart stops node o.Node and starts it again with the settings of o added to its own
// (they accumulate in node<i>/node.conf: --heap when given, --set, --jvm-opt), then waits for
// CQL and the ring. The changes are recorded in cluster.conf too, so the cluster no longer
// counts as started with plain options: Check fails and Start refuses it without Reset.
func (c *Cluster) Restart(ctx context.Context, o Options) error {
	if o.Node == 0 {
		return fmt.Errorf("restart needs --node i")
	}
	conf := c.ClusterConf()
	if conf == "" {
		return fmt.Errorf("no cluster: run start first")
	}
	n, _ := strconv.Atoi(confValue(conf, "nodes"))
	i := o.Node
	if i > n {
		return fmt.Errorf("node %d is not part of the %d-node cluster", i, n)
	}
	unlock, err := c.beginChange(ctx, o.Force)
	if err != nil {
		return err
	}
	defer unlock()
	t0 := time.Now()
	deadline := t0.Add(o.Timeout)
	c.stopNodes(false, i)
	if err := os.MkdirAll(c.NodeDir(i), 0o755); err != nil {
		return err
	}
	var node, cluster strings.Builder
	if o.HeapSet {
		fmt.Fprintf(&node, "heap=%s\n", o.Heap)
		fmt.Fprintf(&cluster, "node%d.heap=%s\n", i, o.Heap)
	}
	for _, s := range o.Sets {
		fmt.Fprintf(&node, "set=%s\n", s)
		fmt.Fprintf(&cluster, "node%d.set=%s\n", i, s)
	}
	for _, s := range o.JVMOpts {
		fmt.Fprintf(&node, "jvm_opt=%s\n", s)
		fmt.Fprintf(&cluster, "node%d.jvm_opt=%s\n", i, s)
	}
	if err := appendFile(filepath.Join(c.NodeDir(i), "node.conf"), node.String()); err != nil {
		return err
	}
	if err := appendFile(c.clusterConfPath(), cluster.String()); err != nil {
		return err
	}
	c.logf("starting node %d", i)
	if err := c.startProcess(i); err != nil {
		return err
	}
	if err := c.waitCQL(ctx, deadline, t0, o.Timeout, i); err != nil {
		return err
	}
	if err := c.waitRing(ctx, deadline, o.Timeout); err != nil {
		return err
	}
	c.logf("node %d restarted in %ds", i, int(time.Since(t0).Seconds()))
	return nil
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
