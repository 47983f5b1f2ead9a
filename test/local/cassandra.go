package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// Nodes drives the real Cassandra nodes on 127.0.0.1..N through hack/cassandra.sh. The
// stand-in changes the cluster all the time (nodes join, leave and restart), so this process
// holds users.lock exclusively for as long as it uses the cluster: other test processes wait
// for it, and it waits for them, as the script's locking protocol asks.
type Nodes struct {
	Script     string
	Datacenter string // Cassandra datacenter name, as cass-operator sets it
	Heap       string // heap of a node whose config names none
	MaxNodes   int
	Logf       func(format string, args ...any)

	users    *os.File
	base     map[string]any // the script's base cassandra.yaml
	rackdc   string
	LockWait time.Duration
}

// Username and Password of the superuser of a --auth cluster.
const (
	Username = "cassandra"
	Password = "cassandra"
)

// NodeIP is node i's address.
func NodeIP(i int) string { return "127.0.0." + strconv.Itoa(i) }

// Start takes the cluster for this process and starts it fresh with one node: the snitch
// names the datacenter as cass-operator does, and password authentication is on.
func (n *Nodes) Start(ctx context.Context) error {
	if err := n.lock(ctx); err != nil {
		return err
	}
	dist, err := n.run(ctx, "fetch")
	if err != nil {
		return err
	}
	if n.base, err = readYAML(filepath.Join(kube.LastLine(dist), "conf", "cassandra.yaml")); err != nil {
		return err
	}
	dir := filepath.Join(kube.CacheDir(), "local")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n.rackdc = filepath.Join(dir, "cassandra-rackdc-"+n.Datacenter+".properties")
	if err := os.WriteFile(n.rackdc, []byte("dc="+n.Datacenter+"\nrack=rack1\n"), 0o644); err != nil {
		return err
	}
	// The cluster is created at its largest size and shrunk to one node at once: the script
	// adds a node only as one of the cluster's size (restart --node i), whatever the nodes'
	// later settings.
	n.Logf("starting %d Cassandra node(s) and decommissioning all but node 1", n.MaxNodes)
	if _, err := n.run(ctx, append([]string{"start", "--reset"}, n.clusterArgs(n.MaxNodes)...)...); err != nil {
		return err
	}
	for i := n.MaxNodes; i > 1; i-- {
		if err := n.Remove(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

func (n *Nodes) clusterArgs(nodes int) []string {
	return []string{
		"--nodes", strconv.Itoa(nodes), "--heap", n.Heap, "--auth",
		"--set", "endpoint_snitch=GossipingPropertyFileSnitch",
		"--jvm-opt", "-Dcassandra-rackdc.properties=file://" + n.rackdc,
	}
}

// Add starts node i afresh (it must not run) with the given settings; it bootstraps into the
// ring.
func (n *Nodes) Add(ctx context.Context, i int, s NodeSettings) error {
	if err := os.RemoveAll(n.nodeDir(i)); err != nil {
		return err
	}
	_, err := n.run(ctx, append([]string{"restart", "--node", strconv.Itoa(i)}, s.args(nil, n.base, n.Heap)...)...)
	return err
}

// Restart stops node i and starts it with new settings; applied are the settings it runs with,
// so that settings no longer wanted go back to the base config.
func (n *Nodes) Restart(ctx context.Context, i int, applied, s NodeSettings) error {
	_, err := n.run(ctx, append([]string{"restart", "--node", strconv.Itoa(i)}, s.args(&applied, n.base, n.Heap)...)...)
	return err
}

// Remove decommissions node i, stops it and deletes its data, as cass-operator does with a
// pod and its volume on a scale-down. Decommission is forced, as cass-operator's is.
func (n *Nodes) Remove(ctx context.Context, i int) error {
	if n.running(i) {
		if _, err := n.run(ctx, "nodetool", "--node", strconv.Itoa(i), "decommission", "--force"); err != nil {
			return err
		}
		if _, err := n.run(ctx, "stop", "--node", strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return os.RemoveAll(n.nodeDir(i))
}

// Stop stops every node and lets other test processes use the cluster again.
func (n *Nodes) Stop(ctx context.Context) error {
	var err error
	if n.users != nil {
		_, err = n.run(ctx, "stop")
		_ = n.users.Close() // releases the lock
		n.users = nil
	}
	return err
}

// Running lists the nodes whose JVM runs, ascending.
func (n *Nodes) Running() []int {
	var out []int
	for i := 1; i <= n.MaxNodes; i++ {
		if n.running(i) {
			out = append(out, i)
		}
	}
	return out
}

func (n *Nodes) running(i int) bool { return n.PID(i) != 0 }

// PID is node i's JVM process id, or 0.
func (n *Nodes) PID(i int) int {
	data, err := os.ReadFile(filepath.Join(n.nodeDir(i), "cassandra.pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || syscall.Kill(pid, 0) != nil {
		return 0
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("-Dcassandra.storagedir="+n.nodeDir(i)+"\x00")) {
		return 0
	}
	return pid
}

// HeapOf is the -Xmx node i's JVM runs with.
func (n *Nodes) HeapOf(i int) string {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n.PID(i)))
	if err != nil {
		return ""
	}
	for _, arg := range strings.Split(string(cmdline), "\x00") {
		if strings.HasPrefix(arg, "-Xmx") {
			return strings.TrimPrefix(arg, "-Xmx")
		}
	}
	return ""
}

func (n *Nodes) nodeDir(i int) string {
	return filepath.Join(kube.CacheDir(), "cassandra", "nodes", "node"+strconv.Itoa(i))
}

// lock takes users.lock exclusively, waiting for other test processes to finish with the
// cluster.
func (n *Nodes) lock(ctx context.Context) error {
	dir := filepath.Join(kube.CacheDir(), "cassandra")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "users.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	wait := n.LockWait
	if wait == 0 {
		wait = 30 * time.Minute
	}
	deadline := time.Now().Add(wait)
	for logged := false; ; logged = true {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			n.users = f
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return fmt.Errorf("locking %s: %w", f.Name(), err)
		}
		if !logged {
			n.Logf("waiting for other processes using the Cassandra cluster to finish (they hold %s)", f.Name())
		}
		if time.Now().After(deadline) {
			_ = f.Close()
			return fmt.Errorf("other processes kept %s for %s", f.Name(), wait)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// run runs hack/cassandra.sh; its error carries the output.
func (n *Nodes) run(ctx context.Context, args ...string) (string, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "bash", append([]string{n.Script}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// This process holds users.lock: the script must not wait for it.
	cmd.Env = append(os.Environ(), "CASSBENCH_USERS_LOCK_HELD=1")
	err := cmd.Run()
	n.Logf("hack/cassandra.sh %s (%.1fs)", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		return "", fmt.Errorf("hack/cassandra.sh %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

func readYAML(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	out := map[string]any{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	return out, nil
}

var heapSize = regexp.MustCompile(`^[0-9]+[kKmMgG]$`)

// Base is the script's base cassandra.yaml, which node settings depart from.
func (n *Nodes) Base() map[string]any { return n.base }
