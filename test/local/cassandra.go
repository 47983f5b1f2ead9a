package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// Nodes is the local Cassandra cluster the datacenter's pods run their nodes in: node i on
// 127.0.0.i, through internal/localcassandra. Its pods start and stop nodes all the time, so
// this process holds users.lock exclusively for as long as it uses the cluster: other test
// processes wait for it, and it waits for them, as the cluster's locking protocol asks.
type Nodes struct {
	Datacenter string // Cassandra datacenter name, as cass-operator sets it
	Heap       string // heap of a node whose config names none
	MaxNodes   int
	Logf       func(format string, args ...any)

	users    *localcassandra.Lock
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

// Start takes the cluster for this process, fetches Cassandra and configures a cluster of
// MaxNodes nodes with none running, its data wiped: the pods' management API starts each node
// when cass-operator asks. The snitch names the datacenter as cass-operator does, and password
// authentication is on.
func (n *Nodes) Start(ctx context.Context) error {
	if err := n.lock(ctx); err != nil {
		return err
	}
	if err := n.do("fetch", func(log *bytes.Buffer) error { return n.cluster(log).Fetch(ctx) }); err != nil {
		return err
	}
	dir := filepath.Join(kube.CacheDir(), "local")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n.rackdc = filepath.Join(dir, "cassandra-rackdc-"+n.Datacenter+".properties")
	if err := os.WriteFile(n.rackdc, []byte("dc="+n.Datacenter+"\nrack=default\n"), 0o644); err != nil {
		return err
	}
	o, err := localcassandra.ParseOptions(append([]string{"--reset"}, n.clusterArgs(n.MaxNodes)...))
	if err != nil {
		return err
	}
	return n.do("configure", func(log *bytes.Buffer) error { return n.cluster(log).Configure(ctx, o) })
}

func (n *Nodes) clusterArgs(nodes int) []string {
	return []string{
		"--nodes", strconv.Itoa(nodes), "--heap", n.Heap, "--auth",
		"--set", "endpoint_snitch=GossipingPropertyFileSnitch",
		"--jvm-opt", "-Dcassandra-rackdc.properties=file://" + n.rackdc,
	}
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

// cluster is the shared cluster as this process drives it.
func (n *Nodes) cluster(log *bytes.Buffer) *localcassandra.Cluster { return nodesCluster(log) }

// nodesCluster is the shared cluster as this process drives it: it holds users.lock, so the
// cluster's commands must not wait for it.
func nodesCluster(log io.Writer) *localcassandra.Cluster {
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
