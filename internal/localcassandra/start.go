package localcassandra

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

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
	if err := c.writeConf(o, want, reset); err != nil {
		return err
	}
	if err := c.startNodes(ctx, o, t0, deadline); err != nil {
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
	if o.Datacenters > 1 {
		for i, h := range hosts {
			c.logf("node %d (%s) is in datacenter %s", i+1, h, NodeDatacenter(i+1, o.Datacenters))
		}
	}
	return nil
}

// writeConf records the options the cluster is to run with, first wiping or dropping the
// nodes' own options as the change from the recorded ones needs; other options while nodes
// run are refused.
func (c *Cluster) writeConf(o Options, want string, reset bool) error {
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
	return nil
}

// startNodes starts the nodes of o not running yet, the seed first, and waits until they
// answer CQL and, when some were started, until the ring agrees.
func (c *Cluster) startNodes(ctx context.Context, o Options, t0, deadline time.Time) error {
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
