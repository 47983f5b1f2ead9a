package local

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// Nodes drives the real Cassandra nodes on 127.0.0.1..N through internal/localcassandra. The
// stand-in changes the cluster all the time (nodes join, leave and restart), so this process
// holds users.lock exclusively for as long as it uses the cluster: other test processes wait
// for it, and it waits for them, as the cluster's locking protocol asks.
type Nodes struct {
	Datacenter string // Cassandra datacenter name, as cass-operator sets it
	Heap       string // heap of a node whose config names none
	MaxNodes   int
	Logf       func(format string, args ...any)

	users    *localcassandra.Lock
	base     map[string]any // the cluster's base cassandra.yaml
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
	if err := n.do("fetch", func(log *bytes.Buffer) error { return n.cluster(log).Fetch(ctx) }); err != nil {
		return err
	}
	var err error
	if n.base, err = readYAML(filepath.Join(localcassandra.DefaultLayout().Dist(), "conf", "cassandra.yaml")); err != nil {
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
	// The cluster is created at its largest size and shrunk to one node at once: a node is
	// added only as one of the cluster's size (restart --node i), whatever the nodes' later
	// settings.
	n.Logf("starting %d Cassandra node(s) and decommissioning all but node 1", n.MaxNodes)
	o, err := localcassandra.ParseOptions(append([]string{"--reset"}, n.clusterArgs(n.MaxNodes)...))
	if err != nil {
		return err
	}
	if err := n.do("start", func(log *bytes.Buffer) error { return n.cluster(log).Start(ctx, o) }); err != nil {
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
	return n.restart(ctx, i, s.args(nil, n.base, n.Heap))
}

// Restart stops node i and starts it with new settings; applied are the settings it runs with,
// so that settings no longer wanted go back to the base config.
func (n *Nodes) Restart(ctx context.Context, i int, applied, s NodeSettings) error {
	return n.restart(ctx, i, s.args(&applied, n.base, n.Heap))
}

func (n *Nodes) restart(ctx context.Context, i int, args []string) error {
	o, err := localcassandra.ParseOptions(append([]string{"--node", strconv.Itoa(i)}, args...))
	if err != nil {
		return err
	}
	return n.do("restart "+strings.Join(o.Args()[2:], " "), func(log *bytes.Buffer) error { return n.cluster(log).Restart(ctx, o) })
}

// Remove decommissions node i, stops it and deletes its data, as cass-operator does with a
// pod and its volume on a scale-down. Decommission is forced, as cass-operator's is.
func (n *Nodes) Remove(ctx context.Context, i int) error {
	return n.do("decommission node "+strconv.Itoa(i), func(log *bytes.Buffer) error { return n.cluster(log).Decommission(ctx, i) })
}

// Stop stops every node and lets other test processes use the cluster again.
func (n *Nodes) Stop(ctx context.Context) error {
	var err error
	if n.users != nil {
		err = n.do("stop", func(log *bytes.Buffer) error { return n.cluster(log).Stop(ctx, localcassandra.Options{}) })
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
func (n *Nodes) PID(i int) int { return localcassandra.DefaultLayout().PID(i) }

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

func (n *Nodes) nodeDir(i int) string { return localcassandra.DefaultLayout().NodeDir(i) }

// cluster is the shared cluster as this process drives it: it holds users.lock, so the
// cluster's commands must not wait for it.
func (n *Nodes) cluster(log *bytes.Buffer) *localcassandra.Cluster {
	c := localcassandra.New(log)
	c.UsersLockHeld = true
	return c
}

// do runs one step on the cluster and logs how long it took; its error carries the cluster's
// log.
func (n *Nodes) do(name string, step func(log *bytes.Buffer) error) error {
	start := time.Now()
	var log bytes.Buffer
	err := step(&log)
	n.Logf("cassandra %s (%.1fs)", name, time.Since(start).Seconds())
	if err != nil {
		return fmt.Errorf("cassandra %s: %w\n%s", name, err, log.String())
	}
	return nil
}

// lock takes users.lock exclusively, waiting for other test processes to finish with the
// cluster.
func (n *Nodes) lock(ctx context.Context) error {
	l, err := localcassandra.OpenLock(localcassandra.DefaultLayout().LockPath("users.lock"))
	if err != nil {
		return err
	}
	wait := n.LockWait
	if wait == 0 {
		wait = 30 * time.Minute
	}
	err = l.Wait(ctx, localcassandra.Exclusive, wait, func() {
		n.Logf("waiting for other processes using the Cassandra cluster to finish (they hold %s)", l.Name())
	})
	if err != nil {
		_ = l.Close()
		return err
	}
	n.users = l
	return nil
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

// Base is the cluster's base cassandra.yaml, which node settings depart from.
func (n *Nodes) Base() map[string]any { return n.base }
