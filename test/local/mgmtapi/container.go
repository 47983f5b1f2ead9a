package mgmtapi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"sigs.k8s.io/yaml"
)

// ContainerNode is the Cassandra node of a container that cass-operator runs, in the image
// hack/kind-cass-images.sh builds: Cassandra's jars in Lib, the config server-config-init
// rendered in Conf (copied there from /config at the container's start, as the real image's
// entrypoint does), data in StorageDir and logs in LogDir. The JVM is started as the
// real image's bin/cassandra starts it: the options of jvm-server.options and
// jvm17-server.options, then Cassandra's daemon class; JMX listens on 127.0.0.1:JMXPort for
// nodetool, which is how the real agent's StorageService calls are made here.
type ContainerNode struct {
	Java, Lib, Conf, LogDir string
	// StorageDir is Cassandra's storage directory (cassandra.storagedir: the volume
	// cass-operator mounts, /var/lib/cassandra); its data directory is StorageDir/data unless
	// cassandra.yaml names data_file_directories.
	StorageDir string
	JMXPort    int
	// Username and Password log in to CQL (the default superuser while PasswordAuthenticator
	// is on); the real agent needs none (unix socket).
	Username, Password string
	Logf               func(format string, args ...any)

	liveness Liveness
	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	session  *gocql.Session
}

// Start launches the JVM and returns once it runs; Cassandra goes on starting, and the
// operator sees it through the readiness probe.
func (n *ContainerNode) Start(_ context.Context, replaceIP string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		select {
		case <-n.exited:
		default:
			return errors.New("cassandra runs already")
		}
	}
	args, err := n.jvmArgs(replaceIP)
	if err != nil {
		return err
	}
	out, err := os.OpenFile(filepath.Join(n.LogDir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(n.Java, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return fmt.Errorf("starting cassandra: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		_ = out.Close()
		n.logf("mgmtapi: cassandra exited: %v", err)
		close(exited)
	}()
	n.cmd, n.exited = cmd, exited
	n.logf("mgmtapi: cassandra started (pid %d): %s %s", cmd.Process.Pid, n.Java, strings.Join(args, " "))
	return nil
}

// jvmArgs are the options of the rendered jvm*-server.options files (comments and blank lines
// left out, each line split into words as bin/cassandra's shell splits it), Cassandra's system properties for the container's directories, and the daemon.
func (n *ContainerNode) jvmArgs(replaceIP string) ([]string, error) {
	var args []string
	for _, f := range []string{"jvm-server.options", "jvm17-server.options"} {
		lines, err := optionLines(filepath.Join(n.Conf, f))
		if err != nil {
			return nil, err
		}
		// The shell splits each line into words when bin/cassandra reads the file.
		for _, l := range lines {
			args = append(args, strings.Fields(l)...)
		}
	}
	jamm, _ := filepath.Glob(filepath.Join(n.Lib, "jamm-*.jar"))
	if len(jamm) == 0 {
		return nil, fmt.Errorf("no jamm agent jar in %s", n.Lib)
	}
	args = append(args,
		"-javaagent:"+jamm[0],
		"-Dcassandra.config=file://"+filepath.Join(n.Conf, "cassandra.yaml"),
		"-Dcassandra-rackdc.properties=file://"+filepath.Join(n.Conf, "cassandra-rackdc.properties"),
		"-Dlogback.configurationFile=file://"+filepath.Join(n.Conf, "logback.xml"),
		"-Dcassandra.logdir="+n.LogDir,
		"-Dcassandra.storagedir="+n.StorageDir,
		"-Dcassandra.jmx.local.port="+strconv.Itoa(n.JMXPort),
		"-Dcassandra-foreground=yes",
		"-XX:HeapDumpPath="+n.StorageDir,
		"-Xlog:gc=info:file="+n.gcLog()+":time,uptime:filecount=3,filesize=10M",
	)
	if replaceIP != "" {
		args = append(args, "-Dcassandra.replace_address_first_boot="+replaceIP)
	}
	return append(args, "-cp", n.Conf+":"+n.Lib+"/*", "org.apache.cassandra.service.CassandraDaemon"), nil
}

// optionLines reads a jvm options file's option lines; a missing file has none.
func optionLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// Running tells whether the JVM runs.
func (n *ContainerNode) Running() bool { return n.pid() != 0 }

// Stop ends the JVM (SIGTERM, as the container runtime does) and waits for it.
func (n *ContainerNode) Stop(timeout time.Duration) {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	if n.session != nil {
		n.session.Close()
		n.session = nil
	}
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-exited
	}
}

func (n *ContainerNode) logf(format string, args ...any) {
	if n.Logf != nil {
		n.Logf(format, args...)
	}
}

func (n *ContainerNode) gcLog() string { return filepath.Join(n.LogDir, "gc.log") }

// JVM is where the node's figures are: the JVM this container started (no pid once it
// exited), its gc log, and its data and hints directories.
func (n *ContainerNode) JVM() JVM {
	jvm := JVM{GCLog: n.gcLog(), Data: []string{filepath.Join(n.StorageDir, "data")}, Hints: filepath.Join(n.StorageDir, "hints")}
	if c, err := n.config(); err == nil {
		if len(c.DataFileDirectories) > 0 {
			jvm.Data = c.DataFileDirectories
		}
		if c.HintsDirectory != "" {
			jvm.Hints = c.HintsDirectory
		}
	}
	jvm.PID = n.pid()
	return jvm
}

// pid is the JVM's process, 0 when none runs.
func (n *ContainerNode) pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return 0
	}
	select {
	case <-n.exited:
		return 0
	default:
		return n.cmd.Process.Pid
	}
}

// containerConfig is what the node reads of the rendered cassandra.yaml.
type containerConfig struct {
	ListenAddress       string   `json:"listen_address"`
	DataFileDirectories []string `json:"data_file_directories"`
	HintsDirectory      string   `json:"hints_directory"`
}

func (n *ContainerNode) config() (containerConfig, error) {
	var c containerConfig
	b, err := os.ReadFile(filepath.Join(n.Conf, "cassandra.yaml"))
	if err != nil {
		return c, err
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("cassandra.yaml: %w", err)
	}
	return c, nil
}

// ip is the node's listen_address in the rendered cassandra.yaml: the pod's address.
func (n *ContainerNode) ip() (string, error) {
	c, err := n.config()
	if err != nil {
		return "", fmt.Errorf("%w: %w", err, ErrUnreachable)
	}
	if c.ListenAddress == "" {
		return "", fmt.Errorf("cassandra.yaml names no listen_address: %w", ErrUnreachable)
	}
	return c.ListenAddress, nil
}

// Query runs stmt on this node alone.
func (n *ContainerNode) Query(ctx context.Context, stmt string, values ...any) ([]map[string]any, error) {
	s, err := n.sessionFor()
	if err != nil {
		return nil, err
	}
	rows, err := s.Query(stmt, values...).IterContext(ctx).SliceMap()
	if err != nil {
		n.mu.Lock()
		if n.session == s {
			n.session.Close()
			n.session = nil
		}
		n.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	return rows, nil
}

func (n *ContainerNode) sessionFor() (*gocql.Session, error) {
	ip, err := n.ip()
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.session != nil {
		return n.session, nil
	}
	cfg := gocql.NewCluster(ip)
	cfg.NumConns = 1
	cfg.Timeout = 10 * time.Second
	cfg.ConnectTimeout = 2 * time.Second
	cfg.DisableInitialHostLookup = true
	cfg.HostFilter = gocql.WhiteListHostFilter(ip)
	cfg.Events.DisableTopologyEvents = true
	cfg.Events.DisableSchemaEvents = true
	cfg.Logger = silent{}
	if n.Username != "" {
		cfg.Authenticator = gocql.PasswordAuthenticator{Username: n.Username, Password: n.Password}
	}
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cassandra at %s: %w: %w", ip, err, ErrUnreachable)
	}
	n.session = s
	return s, nil
}

// Endpoints reads system_views.gossip_info on this node.
func (n *ContainerNode) Endpoints(ctx context.Context) ([]map[string]string, error) {
	ip, err := n.ip()
	if err != nil {
		return nil, err
	}
	local, err := n.Query(ctx, "SELECT cluster_name, partitioner FROM system.local WHERE key = 'local'")
	if err != nil {
		return nil, err
	}
	if len(local) == 0 {
		return nil, errors.New("system.local has no row")
	}
	rows, err := n.Query(ctx, "SELECT * FROM system_views.gossip_info")
	if err != nil {
		return nil, err
	}
	return EndpointsFromGossip(rows, ip, str(local[0]["partitioner"]), str(local[0]["cluster_name"]), n.liveness.Alive), nil
}

// Nodetool runs nodetool on this node over its JMX port.
func (n *ContainerNode) Nodetool(ctx context.Context, args ...string) (string, error) {
	// As bin/nodetool runs it on Java 17; its history goes to user.home, which must be
	// writable under a read-only root file system.
	all := append([]string{
		"-Xmx256m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true", "-Duser.home=/tmp",
		"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
		"--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
		"-Dlogback.configurationFile=file://" + filepath.Join(n.Conf, "logback-tools.xml"),
		"-cp", n.Lib + "/*", "org.apache.cassandra.tools.NodeTool", "-h", "127.0.0.1", "-p", strconv.Itoa(n.JMXPort),
	}, args...)
	out, err := exec.CommandContext(ctx, n.Java, all...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("nodetool %v: %w: %s", args, err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

var _ Node = (*ContainerNode)(nil)
