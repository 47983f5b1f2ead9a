package localcassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
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
