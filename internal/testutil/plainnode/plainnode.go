// Package plainnode starts a Cassandra node the way a user starts one by hand, not the way
// cassbench's launcher (internal/localcassandra) does: a plain java command over the
// cassandra-all jars with the JVM's default flags, a minimal cassandra.yaml of its own, no
// -Xlog:gc file, no -XX:+PerfDisableSharedMem and no -Djava.net.preferIPv4Stack=true. So the
// tests of server evidence see a node that cassbench did not shape: one whose CPU and GC are
// found only through what every JVM has (its /proc entries and its hsperfdata counters).
//
// Only the jars are shared with the launcher (its cache of cassandra-all and its
// dependencies from Maven Central; the binary distribution's tarball is not there). The
// command adds only what Cassandra 5.0 cannot start without on Java 17: the module
// exports and opens its own jvm17-server.options lists, and the jamm agent.
package plainnode

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// Node is a running plain node.
type Node struct {
	// Host is its address, Port its CQL port; PID its JVM's process.
	Host string
	Port int
	PID  int
	// Dir holds its configuration, data and logs.
	Dir string
}

// startTimeout bounds the node's start: a loaded machine starts a JVM slowly.
const startTimeout = 5 * time.Minute

// Start fetches the jars if needed, starts the node on 127.0.0.(offset+1) (each test gives
// its own offset, as for cassandra.Private), waits until it answers CQL, and stops it when
// the test ends. The JVM dies with the test process if that is killed. Like a private
// cluster, it must run alone (cassandra.Alone).
func Start(t *testing.T, offset int) *Node {
	t.Helper()
	tier.Require(t, tier.Cassandra)
	cassandra.Alone(t)
	layout := localcassandra.DefaultLayout()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := (&localcassandra.Cluster{Layout: layout, Log: logWriter{t}}).Fetch(ctx); err != nil {
		t.Fatalf("fetching cassandra-all: %v", err)
	}
	n := &Node{Host: "127.0.0." + strconv.Itoa(offset+1), Port: 9042, Dir: t.TempDir()}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(n.Host, strconv.Itoa(n.Port)), time.Second); err == nil {
		_ = c.Close()
		t.Fatalf("%s:%d is taken already: another plain node left running?", n.Host, n.Port)
	}
	if err := n.writeConf(); err != nil {
		t.Fatal(err)
	}
	jamm, _ := filepath.Glob(filepath.Join(layout.Lib(), "jamm-*.jar"))
	if len(jamm) == 0 {
		t.Fatalf("no jamm agent jar in %s", layout.Lib())
	}
	args := append(append([]string{}, java17Modules...),
		"-javaagent:"+jamm[0],
		"-Dcassandra.config=file://"+filepath.Join(n.Dir, "conf", "cassandra.yaml"),
		"-Dcassandra.storagedir="+n.Dir,
		"-Dcassandra.logdir="+filepath.Join(n.Dir, "logs"),
		"-Dlogback.configurationFile=file://"+filepath.Join(n.Dir, "conf", "logback.xml"),
		"-Dcassandra-foreground=yes",
		"-cp", layout.Lib()+"/*", "org.apache.cassandra.service.CassandraDaemon")
	out, err := os.Create(filepath.Join(n.Dir, "logs", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Close() }()
	cmd := exec.Command("java", args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting java: %v", err)
	}
	n.PID = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { stop(t, cmd, exited) })
	t.Logf("plain node: java %s", strings.Join(args, " "))
	if err := n.waitCQL(exited); err != nil {
		log, _ := os.ReadFile(filepath.Join(n.Dir, "logs", "system.log"))
		t.Fatalf("plain node %s: %v\n%s", n.Host, err, tail(string(log), 30))
	}
	return n
}

// java17Modules are the module exports and opens of Cassandra 5.0's jvm17-server.options:
// without them it does not start on Java 17.
var java17Modules = []string{
	"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
	"--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-exports", "java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.registry=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
	"--add-exports", "java.sql/java.sql=ALL-UNNAMED",
	"--add-exports", "java.base/java.lang.ref=ALL-UNNAMED",
	"--add-exports", "jdk.unsupported/sun.misc=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang.module=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.loader=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.reflect=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.math=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.module=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.util.jar=ALL-UNNAMED",
	"--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
	"--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens", "java.base/java.io=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang=ALL-UNNAMED",
	"--add-opens", "java.base/java.util=ALL-UNNAMED",
	"--add-opens", "java.base/java.nio=ALL-UNNAMED",
}

// writeConf writes a minimal cassandra.yaml, the settings a single node must have, and a
// logback.xml logging to a file.
func (n *Node) writeConf() error {
	for _, sub := range []string{"conf", "data", "commitlog", "saved_caches", "hints", "cdc_raw", "logs"} {
		if err := os.MkdirAll(filepath.Join(n.Dir, sub), 0o755); err != nil {
			return err
		}
	}
	yaml := fmt.Sprintf(`cluster_name: plain
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "%[1]s"
listen_address: %[1]s
rpc_address: %[1]s
native_transport_port: %[2]d
data_file_directories: [%[3]s/data]
commitlog_directory: %[3]s/commitlog
saved_caches_directory: %[3]s/saved_caches
hints_directory: %[3]s/hints
cdc_raw_directory: %[3]s/cdc_raw
`, n.Host, n.Port, n.Dir)
	logback := `<configuration scan="false">
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${cassandra.logdir}/system.log</file>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`
	if err := os.WriteFile(filepath.Join(n.Dir, "conf", "cassandra.yaml"), []byte(yaml), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(n.Dir, "conf", "logback.xml"), []byte(logback), 0o644)
}

// waitCQL waits until the node listens for CQL, which it starts last.
func (n *Node) waitCQL(exited <-chan error) error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("the JVM exited: %w", err)
		case <-time.After(time.Second):
		}
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(n.Host, strconv.Itoa(n.Port)), time.Second); err == nil {
			_ = c.Close()
			return nil
		}
	}
	return fmt.Errorf("no CQL on %s:%d after %v", n.Host, n.Port, startTimeout)
}

// stop ends the JVM: SIGTERM, then SIGKILL after 30 s.
func stop(t *testing.T, cmd *exec.Cmd, exited <-chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		t.Logf("plain node %d stopped: %v", cmd.Process.Pid, err)
	case <-time.After(30 * time.Second):
		t.Logf("plain node %d ignored SIGTERM for 30 s: killing it", cmd.Process.Pid)
		_ = cmd.Process.Kill()
		t.Logf("plain node %d killed: %v", cmd.Process.Pid, <-exited)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// logWriter passes the fetch's progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
