package localcassandra

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// Status writes the cluster options and each node's state: pid, resident memory, whether it
// answers CQL, its JMX address.
func (c *Cluster) Status(ctx context.Context, w io.Writer) {
	conf := c.ClusterConf()
	if conf == "" {
		fetched := "no"
		if c.fetched() {
			fetched = "yes"
		}
		fmt.Fprintf(w, "no cluster (fetched: %s, cache %s)\n", fetched, c.Cache)
		return
	}
	fmt.Fprintf(w, "cluster options (%s):\n", c.clusterConfPath())
	for _, line := range strings.Split(conf, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, i := range c.KnownNodes() {
		pid := c.PID(i)
		if pid == 0 {
			fmt.Fprintf(w, "node%d %s stopped\n", i, c.NodeIP(i))
			continue
		}
		cql := "CQL down"
		if c.probe(ctx, i, "", "") == nil {
			cql = "CQL up"
		}
		fmt.Fprintf(w, "node%d %s running pid %d rss %s, %s, jmx 127.0.0.1:%d\n", i, c.NodeIP(i), pid, rss(pid), cql, c.JMXPort(i))
	}
}

func rss(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return fmt.Sprintf("%d MiB", kb/1024)
		}
	}
	return "?"
}

// Pause freezes node i (SIGSTOP): it keeps its sockets open and answers nothing, as a node in
// a long GC pause or behind a dead link does. Resume lets it go on (SIGCONT).
func (c *Cluster) Pause(i int) error { return c.signal(i, syscall.SIGSTOP) }

// Resume undoes Pause.
func (c *Cluster) Resume(i int) error { return c.signal(i, syscall.SIGCONT) }

func (c *Cluster) signal(i int, sig syscall.Signal) error {
	pid := c.PID(i)
	if pid == 0 {
		return fmt.Errorf("node %d does not run", i)
	}
	return syscall.Kill(pid, sig)
}

// Nodetool runs org.apache.cassandra.tools.NodeTool against node i's JMX port.
func (c *Cluster) Nodetool(ctx context.Context, i int, stdout, stderr io.Writer, args ...string) error {
	if !c.fetched() {
		return fmt.Errorf("not fetched: run fetch first")
	}
	all := append(c.toolArgs(), "org.apache.cassandra.tools.NodeTool", "-h", "127.0.0.1", "-p", strconv.Itoa(c.JMXPort(i)))
	cmd := exec.CommandContext(ctx, c.ToolJava(), append(all, args...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd.Run()
}

// Decommission makes node i leave the ring (nodetool decommission --force, as cass-operator
// does on a scale-down), stops it and deletes its directory.
func (c *Cluster) Decommission(ctx context.Context, i int) error {
	if c.Running(i) {
		var out strings.Builder
		if err := c.Nodetool(ctx, i, &out, &out, "decommission", "--force"); err != nil {
			return fmt.Errorf("decommissioning node %d: %w\n%s", i, err, out.String())
		}
		if err := c.Stop(ctx, Options{Node: i}); err != nil {
			return err
		}
	}
	return os.RemoveAll(c.NodeDir(i))
}
