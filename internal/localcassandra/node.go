package localcassandra

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PID is node i's JVM process id, or 0 when it does not run. The pid file alone is not
// trusted: the process must be a CassandraDaemon of this very node directory.
func (l Layout) PID(i int) int {
	data, err := os.ReadFile(filepath.Join(l.NodeDir(i), "cassandra.pid"))
	if err != nil {
		return 0
	}
	text := strings.TrimSpace(string(data))
	pid, err := strconv.Atoi(text)
	if err != nil || !isDigits(text) || syscall.Kill(pid, 0) != nil {
		return 0
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("CassandraDaemon")) ||
		!bytes.Contains(cmdline, []byte("-Dcassandra.storagedir="+l.NodeDir(i)+"\x00")) {
		return 0
	}
	return pid
}

// Running tells whether node i's JVM runs.
func (l Layout) Running(i int) bool { return l.PID(i) != 0 }

var nodeDirRE = regexp.MustCompile(`^node([0-9]+)$`)

// KnownNodes are the nodes that have a directory, ascending.
func (l Layout) KnownNodes() []int {
	entries, _ := os.ReadDir(l.Nodes())
	var out []int
	for _, e := range entries {
		if m := nodeDirRE.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			i, _ := strconv.Atoi(m[1])
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}

// RunningNodes are the nodes whose JVM runs, ascending.
func (l Layout) RunningNodes() []int {
	var out []int
	for _, i := range l.KnownNodes() {
		if l.Running(i) {
			out = append(out, i)
		}
	}
	return out
}

// startProcess launches node i's JVM in its own session (it outlives this process) and
// returns without waiting for it to answer.
func (c *Cluster) startProcess(i int) error {
	dir := c.NodeDir(i)
	if err := c.writeNodeConf(i); err != nil {
		return fmt.Errorf("writing node %d's configuration: %w", i, err)
	}
	clusterConf := readText(filepath.Join(c.Nodes(), "cluster.conf"))
	nodeConf := readText(filepath.Join(dir, "node.conf"))
	heap := confValue(nodeConf, "heap")
	if heap == "" {
		heap = confValue(clusterConf, "heap")
	}
	if heap == "" {
		heap = "512M"
	}
	jamm, _ := filepath.Glob(filepath.Join(c.Lib(), "jamm-*.jar"))
	if len(jamm) == 0 {
		return fmt.Errorf("no jamm agent jar in %s: fetch again", c.Lib())
	}
	extra := append(confValues(clusterConf, "jvm_opt"), confValues(nodeConf, "jvm_opt")...)
	args := c.jvmArgs(i, heap, jamm[0], extra)
	now := time.Now().Format(time.RFC3339)
	record := fmt.Sprintf("# %s start node %d\n%s\n", now, i, shellQuote(append([]string{c.Java()}, args...)))
	if err := os.WriteFile(filepath.Join(dir, "conf", "command.sh"), []byte(record), 0o644); err != nil {
		return err
	}
	out, err := os.OpenFile(filepath.Join(dir, "logs", "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = out.Close() }()
	fmt.Fprintf(out, "=== %s starting node %d\n", now, i)
	cmd := exec.Command(c.Java(), args...)
	// Stdin nil is /dev/null. Only descriptors 0-2 are passed on: Go opens files close-on-exec,
	// so no lock of this process stays held for the node's life.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting node %d: %w", i, err)
	}
	c.watch(i, cmd)
	return os.WriteFile(filepath.Join(dir, "cassandra.pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
}

// stopNodes signals the given nodes (SIGTERM, or SIGKILL when hard), waits for them to exit
// (SIGKILL after 90 s) and removes their pid files.
func (c *Cluster) stopNodes(hard bool, nodes ...int) {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	var pids, which []int
	for _, i := range nodes {
		if pid := c.PID(i); pid != 0 {
			_ = syscall.Kill(pid, sig)
			pids, which = append(pids, pid), append(which, i)
		}
	}
	if len(pids) == 0 {
		return
	}
	c.logf("stopping node(s) %s", ints(which))
	deadline := time.Now().Add(90 * time.Second)
	for {
		alive := false
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil {
				alive = true
			}
		}
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			c.logf("node(s) did not exit within 90s: sending SIGKILL")
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			deadline = time.Now().Add(30 * time.Second)
		}
		time.Sleep(500 * time.Millisecond)
	}
	for _, i := range which {
		_ = os.Remove(filepath.Join(c.NodeDir(i), "cassandra.pid"))
	}
	c.logf("stopped node(s) %s", ints(which))
}

// nodeFailure stops the nodes this call started and returns an error with node i's logs.
func (c *Cluster) nodeFailure(i int, reason string) error {
	dir := c.NodeDir(i)
	system, _ := os.ReadFile(filepath.Join(dir, "logs", "system.log"))
	stdout, _ := os.ReadFile(filepath.Join(dir, "logs", "stdout.log"))
	msg := fmt.Sprintf("node %d (%s) %s\n--- last lines of %s/logs/system.log ---\n%s\n--- last lines of %s/logs/stdout.log ---\n%s",
		i, c.NodeIP(i), reason, dir, tail(string(system), 40), dir, tail(string(stdout), 20))
	for _, n := range c.started {
		_ = syscall.Kill(n.pid, syscall.SIGTERM)
	}
	for _, n := range c.started {
		for k := 0; k < 60 && syscall.Kill(n.pid, 0) == nil; k++ {
			time.Sleep(500 * time.Millisecond)
		}
		_ = syscall.Kill(n.pid, syscall.SIGKILL)
	}
	if len(c.started) > 0 {
		msg += "\nstopped the node(s) this call started"
	}
	c.started = nil
	return errors.New(msg)
}

// watch records node i's JVM, just started, as one the current call started, and reaps it
// if it ends while this process lives (a zombie would look alive to kill(0)).
func (c *Cluster) watch(i int, cmd *exec.Cmd) {
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	if c.started == nil {
		c.started = map[int]startedNode{}
	}
	c.started[i] = startedNode{pid: cmd.Process.Pid, exited: exited}
}

// alive tells whether node i's JVM runs. A node this call started is judged by its process,
// gone once reaped: right after exec, until the kernel has laid out the new program's
// arguments, /proc/PID/cmdline reads empty (7 of 100 reads right after starting java here),
// and Running, which identifies a node by its command line, would take it for gone.
func (c *Cluster) alive(i int) bool {
	if n, ok := c.started[i]; ok {
		select {
		case <-n.exited:
			return false
		default:
			return true
		}
	}
	return c.Running(i)
}

// waitCQL waits until every listed node answers CQL.
func (c *Cluster) waitCQL(ctx context.Context, deadline time.Time, t0 time.Time, timeout time.Duration, nodes ...int) error {
	pending := nodes
	for len(pending) > 0 {
		var still []int
		for _, i := range pending {
			if !c.alive(i) {
				return c.nodeFailure(i, "exited during startup")
			}
			if c.probe(ctx, i, "", "") == nil {
				c.logf("node %d (%s) answers CQL after %ds", i, c.NodeIP(i), int(time.Since(t0).Seconds()))
			} else {
				still = append(still, i)
			}
		}
		pending = still
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return c.nodeFailure(pending[0], fmt.Sprintf("did not answer CQL on %s:%d within %ds", c.NodeIP(pending[0]), CQLPort, int(timeout.Seconds())))
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) probe(ctx context.Context, i int, user, pass string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return Probe(ctx, c.NodeIP(i), CQLPort, user, pass)
}

// waitRing waits until every running node sees all running nodes as Up/Normal.
func (c *Cluster) waitRing(ctx context.Context, deadline time.Time, timeout time.Duration) error {
	nodes := c.RunningNodes()
	want := len(nodes)
	for _, i := range nodes {
		for {
			seen := c.upCount(ctx, i)
			if seen == want {
				break
			}
			if time.Now().After(deadline) {
				return c.nodeFailure(i, fmt.Sprintf("sees %d of %d nodes Up/Normal after %ds", seen, want, int(timeout.Seconds())))
			}
			if err := sleep(ctx, 2*time.Second); err != nil {
				return err
			}
		}
	}
	c.logf("all %d running node(s) see each other as UN", want)
	return nil
}

// upCount is how many nodes node i's gossip sees as Up/Normal (nodetool status).
func (c *Cluster) upCount(ctx context.Context, i int) int {
	var out bytes.Buffer
	if err := c.Nodetool(ctx, i, &out, nil, "status"); err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "UN") {
			n++
		}
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}
