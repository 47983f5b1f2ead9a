// Package cassandra gives tests a real Apache Cassandra 5.0 cluster on loopback addresses,
// run by hack/cassandra.sh (jars from Maven Central, cached outside the repository).
//
// Start fetches what is missing, starts the cluster or reuses the one already running with
// the same options, and fails the test with the script's output when it cannot: tests never
// skip for want of Cassandra. The cluster is shared by all tests and test processes and keeps
// running after they exit, so the next run starts in about a second; `hack/cassandra.sh stop`
// (or wipe) ends it.
//
// Test processes coordinate through flock(2) on files in the cache directory: every process
// using the cluster holds a shared lock on users.lock for its whole life; replacing the cluster
// with one of other options, or stopping or pausing a node (StopNode, PauseNode), takes it
// exclusively, so it waits until no other test process is using the cluster. cluster.lock
// serialises the decisions.
package cassandra

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/testutil/kube"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// Options describe the cluster a test needs. Tests asking for equal options share a cluster.
type Options struct {
	Nodes    int               // number of nodes, on 127.0.0.1..127.0.0.N; 0 means 1
	Heap     string            // JVM heap per node (-Xms/-Xmx), e.g. "512M"; "" means 512M
	Settings map[string]string // top-level cassandra.yaml overrides, value written as YAML
	Auth     bool              // PasswordAuthenticator + CassandraAuthorizer, superuser cassandra/cassandra
}

// Cluster is a running cluster: node i (1-based) listens on Hosts[i-1]:Port.
type Cluster struct {
	Hosts    []string
	Port     int
	Username string // "cassandra" when Options.Auth, else ""
	Password string

	opts Options
}

// CQLPort is the native protocol port of every node.
const CQLPort = 9042

// lockWait bounds how long Start and StopNode wait for other test processes.
const lockWait = 15 * time.Minute

var (
	mu        sync.Mutex
	usersFile *os.File
	usersMode int              // 0, syscall.LOCK_SH or syscall.LOCK_EX held on usersFile
	stopped   = map[int]bool{} // nodes this process stopped and has not started again
)

// Start returns a running cluster with the given options, starting (or replacing) it if needed.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	tier.Require(t, tier.Cassandra)
	opts = normalize(opts)
	mu.Lock()
	defer mu.Unlock()

	script := scriptPath(t)
	run(t, script, "fetch")
	args := startArgs(opts)

	mutex := openLock(t, "cluster.lock")
	defer func() { _ = mutex.Close() }() // closing releases the lock; nothing was written
	users := usersLock(t)
	deadline := time.Now().Add(lockWait)
	logged := false
	var err error
	for {
		flockExclusive(t, mutex, deadline)
		same := exec.Command("bash", append([]string{script, "check"}, args...)...).Run() == nil
		if same && usersMode == syscall.LOCK_EX {
			break // this process stopped nodes of this very cluster: leave them as they are
		}
		if same {
			if usersMode == syscall.LOCK_SH || flock(users, syscall.LOCK_SH) {
				usersMode = syscall.LOCK_SH
				err = runErr(t, script, append([]string{"start"}, args...)...)
				break
			}
		} else {
			// Converting a lock may drop it before failing: note that before trying.
			usersMode = 0
			if flock(users, syscall.LOCK_EX) {
				usersMode = syscall.LOCK_EX
				stopped = map[int]bool{}
				err = runErr(t, script, append([]string{"start", "--reset"}, args...)...)
				usersMode = 0
				if flock(users, syscall.LOCK_SH) {
					usersMode = syscall.LOCK_SH
				}
				break
			}
		}
		_ = syscall.Flock(int(mutex.Fd()), syscall.LOCK_UN)
		if time.Now().After(deadline) {
			t.Fatalf("cassandra: another test process kept the cluster (with other options, or with a node stopped) for %v", lockWait)
		}
		if !logged {
			t.Logf("cassandra: waiting for other test processes to release the cluster (%s)", filepath.Join(kube.CacheDir(), "cassandra", "users.lock"))
			logged = true
		}
		time.Sleep(time.Second)
	}
	_ = syscall.Flock(int(mutex.Fd()), syscall.LOCK_UN)
	if err != nil {
		t.Fatal(err)
	}

	c := &Cluster{Port: CQLPort, opts: opts}
	for i := 1; i <= opts.Nodes; i++ {
		c.Hosts = append(c.Hosts, nodeIP(i))
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
	script := c.own(t, i)
	stopped[i] = true
	run(t, script, "stop", "--node", strconv.Itoa(i))
	t.Cleanup(func() {
		mu.Lock()
		isStopped := stopped[i]
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
	script := c.own(t, i)
	resume := sync.OnceFunc(func() { run(t, script, "resume", "--node", strconv.Itoa(i)) })
	t.Cleanup(resume)
	run(t, script, "pause", "--node", strconv.Itoa(i))
	time.Sleep(d)
	resume()
	share()
}

// StartNode starts node i again with its data and configuration and waits until it answers
// CQL and every running node sees it Up/Normal. A node that runs already is restarted. Like
// StopNode it first waits until no other test process uses the cluster.
func (c *Cluster) StartNode(t testing.TB, i int) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	script := c.own(t, i)
	run(t, script, "restart", "--node", strconv.Itoa(i))
	delete(stopped, i)
	share()
}

// own checks that node i exists and makes this process the only user of the cluster; it
// returns the script that changes nodes. Callers hold mu.
func (c *Cluster) own(t testing.TB, i int) string {
	t.Helper()
	c.checkNode(t, i)
	script := scriptPath(t)
	exclusive(t)
	return script
}

// exclusive makes this process the only user of the cluster: it takes users.lock exclusively,
// waiting for other test processes to let go, unless it holds it so already. Callers hold mu.
func exclusive(t testing.TB) {
	t.Helper()
	users := usersLock(t)
	if usersMode == syscall.LOCK_EX {
		return
	}
	usersMode = 0
	flockExclusive(t, users, time.Now().Add(lockWait))
	usersMode = syscall.LOCK_EX
}

// share lets other test processes use the cluster again once no node this process stopped is
// down. Callers hold mu.
func share() {
	if len(stopped) != 0 || usersMode != syscall.LOCK_EX {
		return
	}
	usersMode = 0
	if flock(usersFile, syscall.LOCK_SH) {
		usersMode = syscall.LOCK_SH
	}
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

func startArgs(o Options) []string {
	args := []string{"--nodes", strconv.Itoa(o.Nodes), "--heap", o.Heap}
	keys := make([]string, 0, len(o.Settings))
	for k := range o.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--set", k+"="+o.Settings[k])
	}
	if o.Auth {
		args = append(args, "--auth")
	}
	return args
}

func nodeIP(i int) string { return "127.0.0." + strconv.Itoa(i) }

// run executes hack/cassandra.sh and fails the test with its output if it fails.
func run(t testing.TB, script string, args ...string) {
	t.Helper()
	if err := runErr(t, script, args...); err != nil {
		t.Fatal(err)
	}
}

// runErr executes hack/cassandra.sh; its error carries the script's output.
func runErr(t testing.TB, script string, args ...string) error {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	// This process holds users.lock (shared, or exclusive when it changes the cluster): the
	// script must not wait for it.
	cmd.Env = append(os.Environ(), "CASSBENCH_USERS_LOCK_HELD=1")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cassandra: hack/cassandra.sh %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Logf("cassandra: hack/cassandra.sh %s (%.1fs):\n%s", strings.Join(args, " "), d.Seconds(), strings.TrimSpace(out.String()))
	}
	return nil
}

func openLock(t testing.TB, name string) *os.File {
	t.Helper()
	dir := filepath.Join(kube.CacheDir(), "cassandra")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("cassandra: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("cassandra: %v", err)
	}
	return f
}

// usersLock returns the process-wide users.lock file, kept open (and locked) for the life of
// the process.
func usersLock(t testing.TB) *os.File {
	t.Helper()
	if usersFile == nil {
		usersFile = openLock(t, "users.lock")
	}
	return usersFile
}

// flock tries to take (or convert to) how on f without blocking.
func flock(f *os.File, how int) bool {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

// flockExclusive takes f exclusively, polling until deadline.
func flockExclusive(t testing.TB, f *os.File, deadline time.Time) {
	t.Helper()
	for logged := false; !flock(f, syscall.LOCK_EX); logged = true {
		if !logged {
			t.Logf("cassandra: waiting for other test processes to release %s", f.Name())
		}
		if time.Now().After(deadline) {
			t.Fatalf("cassandra: timed out waiting for lock %s held by another test process", f.Name())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// scriptPath locates hack/cassandra.sh by walking up from the working directory (and, failing
// that, from this source file) to the directory holding go.mod.
func scriptPath(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() {
		var starts []string
		if wd, err := os.Getwd(); err == nil {
			starts = append(starts, wd)
		}
		if _, file, _, ok := runtime.Caller(0); ok {
			starts = append(starts, filepath.Dir(file))
		}
		for _, dir := range starts {
			for d := dir; ; d = filepath.Dir(d) {
				if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
					if _, err := os.Stat(filepath.Join(d, "hack", "cassandra.sh")); err == nil {
						rootDir = d
						return
					}
				}
				if filepath.Dir(d) == d {
					break
				}
			}
		}
		rootErr = fmt.Errorf("no go.mod with hack/cassandra.sh above %v", starts)
	})
	if rootErr != nil {
		t.Fatalf("cassandra: %v", rootErr)
	}
	return filepath.Join(rootDir, "hack", "cassandra.sh")
}

// RestartNodeWith restarts node i with another heap (when heap is not empty) and extra JVM
// options, as a node whose settings drifted from the others'. Like StopNode it first waits
// until no other test process uses the cluster. The cluster then no longer matches the
// options it was started with, so the next Start (of this or any test process) replaces it.
func (c *Cluster) RestartNodeWith(t testing.TB, i int, heap string, jvmOpts ...string) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	script := c.own(t, i)
	args := []string{"restart", "--node", strconv.Itoa(i)}
	if heap != "" {
		args = append(args, "--heap", heap)
	}
	for _, o := range jvmOpts {
		args = append(args, "--jvm-opt", o)
	}
	run(t, script, args...)
	delete(stopped, i)
	share()
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
