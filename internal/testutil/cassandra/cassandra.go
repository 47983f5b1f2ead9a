// Package cassandra gives tests a real Apache Cassandra 5.0 cluster on loopback addresses,
// run by internal/localcassandra (jars from Maven Central, cached outside the repository).
//
// Start fetches what is missing, starts the cluster or reuses the one already running with
// the same options, and fails the test with what went wrong when it cannot: tests never
// skip for want of Cassandra. The cluster is shared by all tests and test processes and keeps
// running after they exit, so the next run starts in under a second; `hack/cassandra.sh stop`
// (or wipe) ends it.
//
// Test processes coordinate through flock(2) on files in the cache directory: every process
// using the cluster holds a shared lock on users.lock for its whole life; replacing the cluster
// with one of other options, or stopping or pausing a node (StopNode, PauseNode), takes it
// exclusively, so it waits until no other test process is using the cluster. cluster.lock
// serialises the decisions.
//
// The cluster is the one internal/localcassandra's DefaultLayout names: like
// hack/cassandra.sh, Start honours CASSBENCH_CASSANDRA_DIR (nodes and lock files elsewhere)
// and CASSBENCH_CASSANDRA_OFFSET=k (node i on 127.0.0.(k+i)), so a test process can run on a
// cluster of its own beside the shared one. Private gives one test such a cluster.
package cassandra

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// Options describe the cluster a test needs. Tests asking for equal options share a cluster.
type Options struct {
	Nodes int // number of nodes, on 127.0.0.1..127.0.0.N; 0 means 1
	// Datacenters spreads the nodes over dc1..dcD of one cluster, round robin (node i in
	// dc<((i-1) mod D)+1>, see localcassandra.NodeDatacenter); 0 or 1: one "datacenter1".
	Datacenters int
	Heap        string            // JVM heap per node (-Xms/-Xmx), e.g. "512M"; "" means 512M
	Settings    map[string]string // top-level cassandra.yaml overrides, value written as YAML
	Auth        bool              // PasswordAuthenticator + CassandraAuthorizer, superuser cassandra/cassandra
	// Version is the Cassandra version of a Private cluster ("4.1.10"); "" is the layout's
	// (CASSBENCH_CASSANDRA_VERSION, default 5.0.9). The shared cluster keeps the layout's.
	Version string
}

// Cluster is a running cluster: node i (1-based) listens on Hosts[i-1]:Port.
type Cluster struct {
	Hosts    []string
	Port     int
	Username string // "cassandra" when Options.Auth, else ""
	Password string
	// Datacenters holds the hosts of each datacenter, by name ("datacenter1" for a cluster
	// of one).
	Datacenters map[string][]string

	opts   Options
	layout localcassandra.Layout
}

// CQLPort is the native protocol port of every node.
const CQLPort = 9042

// lockWait is the least Start and StopNode wait for other test processes. test/local holds
// the cluster for its whole package, exclusively, and how long that is depends on the machine:
// 24 minutes once, 43 on another, where a package that waited a fixed 30 behind it failed
// (test/local/mgmtapi, which go test runs beside it). So a test waits until its binary's
// -timeout is near, keeping lockMargin to run once it has the cluster, and lockWait at least.
// That wait also keeps test/local nearly alone on the machine: with mgmtapi's tests moved to
// make test-timing, test/packaging ran beside test/local's first scenarios, and the capacity
// search's node went from missing 500 ops/s to meeting 6,400 within one run.
const lockWait = 30 * time.Minute

// lockMargin is what a test keeps of its binary's -timeout to run once it has the cluster.
const lockMargin = 10 * time.Minute

// waitFor is how long t waits for other test processes: until lockMargin before its binary's
// deadline, and lockWait at least.
func waitFor(t testing.TB) time.Duration {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, set := d.Deadline(); set {
			return max(lockWait, time.Until(deadline)-lockMargin)
		}
	}
	return lockWait
}

var (
	mu sync.Mutex
	// used holds, for each cluster directory this process used, its users.lock and the nodes
	// it stopped.
	used = map[string]*use{}
)

// use is this process's hold on one cluster directory.
type use struct {
	users   *localcassandra.Lock // kept open (and locked) for the life of the process
	stopped map[int]bool         // nodes this process stopped and has not started again
}

// Start returns a running cluster with the given options, starting (or replacing) it if needed.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	return start(t, localcassandra.DefaultLayout(), opts)
}

// start returns the running cluster of layout l with the given options.
func start(t testing.TB, l localcassandra.Layout, opts Options) *Cluster {
	t.Helper()
	tier.Require(t, tier.Cassandra)
	opts = normalize(opts)
	if opts.Version != "" && opts.Version != l.Version {
		t.Fatalf("cassandra: version %s asked of the shared cluster, which runs %s: a test of another version starts a Private cluster", opts.Version, l.Version)
	}
	if last := l.Offset + opts.Nodes; last > 254 {
		t.Fatalf("cassandra: %d nodes from offset %d reach 127.0.0.%d, beyond 127.0.0.254", opts.Nodes, l.Offset, last)
	}
	mu.Lock()
	defer mu.Unlock()

	do(t, l, "fetch", func(lc *localcassandra.Cluster) error { return lc.Fetch(context.Background()) })
	lo := clusterOptions(opts)

	mutex := openLock(t, l, "cluster.lock")
	defer func() { _ = mutex.Close() }() // closing releases the lock; nothing was written
	u := using(t, l)
	users := u.users
	wait := waitFor(t)
	deadline := time.Now().Add(wait)
	logged, loggedMutex := false, false
	var err error
	for {
		if werr := mutex.Wait(context.Background(), localcassandra.Exclusive, time.Until(deadline), func() {
			if !loggedMutex {
				t.Logf("cassandra: waiting for other test processes to release %s", mutex.Name())
				loggedMutex = true
			}
		}); werr != nil {
			t.Fatalf("cassandra: %v", werr)
		}
		same := cluster(l, nil).Check(lo)
		if same && users.Mode() == localcassandra.Exclusive {
			break // this process stopped nodes of this very cluster: leave them as they are
		}
		if same {
			if users.Mode() == localcassandra.Shared || users.Try(localcassandra.Shared) {
				err = startCluster(t, l, "start", lo)
				break
			}
		} else if users.Try(localcassandra.Exclusive) {
			u.stopped = map[int]bool{}
			reset := lo
			reset.Reset = true
			err = startCluster(t, l, "start --reset", reset)
			users.Try(localcassandra.Shared)
			break
		}
		mutex.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("cassandra: another test process kept the cluster (with other options, or with a node stopped) for %v", wait.Round(time.Second))
		}
		if !logged {
			t.Logf("cassandra: waiting for other test processes to release the cluster (%s)", users.Name())
			logged = true
		}
		time.Sleep(time.Second)
	}
	mutex.Unlock()
	if err != nil {
		t.Fatal(err)
	}

	c := &Cluster{Port: CQLPort, opts: opts, layout: l, Datacenters: map[string][]string{}}
	for i := 1; i <= opts.Nodes; i++ {
		c.Hosts = append(c.Hosts, l.NodeIP(i))
		dc := localcassandra.NodeDatacenter(i, opts.Datacenters)
		c.Datacenters[dc] = append(c.Datacenters[dc], l.NodeIP(i))
	}
	if opts.Auth {
		c.Username, c.Password = "cassandra", "cassandra"
	}
	return c
}

// StopNode stops node i (1-based, Hosts[i-1]) gracefully and waits for its exit. It first
// waits until no other test process uses the cluster. The node is started again when the test
// ends unless StartNode did so already.
func (c *Cluster) StopNode(t testing.TB, i int) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	c.own(t, i)
	u := using(t, c.layout)
	u.stopped[i] = true
	do(t, c.layout, "stop", func(lc *localcassandra.Cluster) error {
		return lc.Stop(context.Background(), localcassandra.Options{Node: i})
	})
	t.Cleanup(func() {
		mu.Lock()
		isStopped := u.stopped[i]
		mu.Unlock()
		if isStopped {
			c.StartNode(t, i)
		}
	})
}

// PauseNode freezes node i (SIGSTOP) for d and then lets it go on, as a long GC pause would:
// its connections stay open and nothing answers. Like StopNode it first waits until no other
// test process uses the cluster; the node is resumed even if the test fails meanwhile.
func (c *Cluster) PauseNode(t testing.TB, i int, d time.Duration) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	c.own(t, i)
	resume := sync.OnceFunc(func() { do(t, c.layout, "resume", func(lc *localcassandra.Cluster) error { return lc.Resume(i) }) })
	t.Cleanup(resume)
	do(t, c.layout, "pause", func(lc *localcassandra.Cluster) error { return lc.Pause(i) })
	time.Sleep(d)
	resume()
	share(using(t, c.layout))
}

// StartNode starts node i again with its data and configuration and waits until it answers
// CQL and every running node sees it Up/Normal. A node that runs already is restarted. Like
// StopNode it first waits until no other test process uses the cluster.
func (c *Cluster) StartNode(t testing.TB, i int) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	c.own(t, i)
	o := localcassandra.DefaultOptions()
	o.Node = i
	do(t, c.layout, "restart", func(lc *localcassandra.Cluster) error { return lc.Restart(context.Background(), o) })
	u := using(t, c.layout)
	delete(u.stopped, i)
	share(u)
}

// own checks that node i exists and makes this process the only user of the cluster.
// Callers hold mu.
func (c *Cluster) own(t testing.TB, i int) {
	t.Helper()
	c.checkNode(t, i)
	exclusive(t, c.layout)
}

// exclusive makes this process the only user of the cluster: it takes users.lock exclusively,
// waiting for other test processes to let go, unless it holds it so already. Callers hold mu.
func exclusive(t testing.TB, l localcassandra.Layout) {
	t.Helper()
	users := using(t, l).users
	if users.Mode() == localcassandra.Exclusive {
		return
	}
	if err := users.Wait(context.Background(), localcassandra.Exclusive, waitFor(t), func() {
		t.Logf("cassandra: waiting for other test processes to release %s", users.Name())
	}); err != nil {
		t.Fatalf("cassandra: %v", err)
	}
}

// share lets other test processes use the cluster again once no node this process stopped is
// down. Callers hold mu.
func share(u *use) {
	if len(u.stopped) != 0 || u.users.Mode() != localcassandra.Exclusive {
		return
	}
	u.users.Try(localcassandra.Shared)
}

func (c *Cluster) checkNode(t testing.TB, i int) {
	t.Helper()
	if i < 1 || i > len(c.Hosts) {
		t.Fatalf("cassandra: node %d is not in the %d-node cluster (nodes are numbered from 1)", i, len(c.Hosts))
	}
}

func normalize(o Options) Options {
	if o.Nodes <= 0 {
		o.Nodes = 1
	}
	if o.Heap == "" {
		o.Heap = "512M"
	}
	return o
}

// clusterOptions are the options of the local cluster that opts asks for; equal options give
// equal clusters, so settings are in a stable order.
func clusterOptions(o Options) localcassandra.Options {
	lo := localcassandra.DefaultOptions()
	lo.Nodes, lo.Heap, lo.Auth, lo.Datacenters = o.Nodes, o.Heap, o.Auth, o.Datacenters
	keys := make([]string, 0, len(o.Settings))
	for k := range o.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lo.Sets = append(lo.Sets, k+"="+o.Settings[k])
	}
	return lo
}

// cluster is the cluster of layout l as this process drives it: it holds users.lock itself,
// so the cluster's commands must not wait for it.
func cluster(l localcassandra.Layout, log io.Writer) *localcassandra.Cluster {
	return &localcassandra.Cluster{Layout: l, Log: log, UsersLockHeld: true}
}

// do runs what on the cluster of l and fails the test with its log if it fails.
func do(t testing.TB, l localcassandra.Layout, name string, what func(*localcassandra.Cluster) error) {
	t.Helper()
	if err := doErr(t, l, name, what); err != nil {
		t.Fatal(err)
	}
}

// doErr runs what on the cluster of l; its error carries the cluster's log, which is also
// logged when what took long.
func doErr(t testing.TB, l localcassandra.Layout, name string, what func(*localcassandra.Cluster) error) error {
	t.Helper()
	var out bytes.Buffer
	start := time.Now()
	if err := what(cluster(l, &out)); err != nil {
		return fmt.Errorf("cassandra: %s: %w\n%s", name, err, out.String())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Logf("cassandra: %s (%.1fs):\n%s", name, d.Seconds(), strings.TrimSpace(out.String()))
	}
	return nil
}

// startCluster starts the cluster of o in layout l.
func startCluster(t testing.TB, l localcassandra.Layout, name string, o localcassandra.Options) error {
	t.Helper()
	return doErr(t, l, name, func(lc *localcassandra.Cluster) error { return lc.Start(context.Background(), o) })
}

func openLock(t testing.TB, l localcassandra.Layout, name string) *localcassandra.Lock {
	t.Helper()
	lock, err := localcassandra.OpenLock(l.LockPath(name))
	if err != nil {
		t.Fatalf("cassandra: %v", err)
	}
	return lock
}

// using returns this process's hold on the cluster directory of l, opening its users.lock
// the first time. Callers hold mu.
func using(t testing.TB, l localcassandra.Layout) *use {
	t.Helper()
	u := used[l.Dir]
	if u == nil {
		u = &use{users: openLock(t, l, "users.lock"), stopped: map[int]bool{}}
		used[l.Dir] = u
	}
	return u
}

// RestartNodeWith restarts node i with another heap (when heap is not empty) and extra JVM
// options, as a node whose settings drifted from the others'. Like StopNode it first waits
// until no other test process uses the cluster. The cluster then no longer matches the
// options it was started with, so the next Start (of this or any test process) replaces it.
func (c *Cluster) RestartNodeWith(t testing.TB, i int, heap string, jvmOpts ...string) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	c.own(t, i)
	o := localcassandra.DefaultOptions()
	o.Node, o.JVMOpts = i, jvmOpts
	if heap != "" {
		o.Heap, o.HeapSet = heap, true
	}
	do(t, c.layout, "restart", func(lc *localcassandra.Cluster) error { return lc.Restart(context.Background(), o) })
	u := using(t, c.layout)
	delete(u.stopped, i)
	share(u)
}

// SystemLogsConfig writes (once) a logback configuration that also routes the node's log to
// system_views.system_logs, and returns the JVM option that selects it. It lives in the cache
// directory, not the test's, since the node keeps using it after the test.
func SystemLogsConfig(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(kube.CacheDir(), "cassandra")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "logback-system-logs.xml")
	const cfg = `<configuration scan="false">
  <appender name="SYSTEMLOG" class="ch.qos.logback.core.FileAppender">
    <file>${cassandra.logdir}/system.log</file>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <appender name="CQLLOG" class="org.apache.cassandra.utils.logging.VirtualTableAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter"><level>INFO</level></filter>
  </appender>
  <root level="INFO">
    <appender-ref ref="SYSTEMLOG"/>
    <appender-ref ref="CQLLOG"/>
  </root>
</configuration>
`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return "-Dlogback.configurationFile=file://" + path
}

// HintBytes is the size of the hint files node i keeps on disk for nodes it could not reach.
// system_views.pending_hints lists a file only once its writer closes it, which Cassandra 5.0
// does when the hints are dispatched or the file is full, not while their node stays down: a
// test that stops a node sees its hints grow here first.
func (c *Cluster) HintBytes(t testing.TB, i int) int64 {
	t.Helper()
	c.checkNode(t, i)
	entries, err := os.ReadDir(filepath.Join(c.layout.NodeDir(i), "hints"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".hints") {
			n += info.Size()
		}
	}
	return n
}
