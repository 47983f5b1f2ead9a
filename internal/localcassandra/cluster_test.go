package localcassandra

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// TestClusterLifecycle runs a real cluster of its own beside the shared one (its own node
// directories and lock files, nodes on 127.0.0.21 and up): cold start, a start that finds it
// running, a second node that bootstraps and is decommissioned, a frozen node, a restart with
// a changed setting, and stop.
func TestClusterLifecycle(t *testing.T) {
	tier.Require(t, tier.Cassandra)
	if os.Getenv("CASSBENCH_ALONE_TESTS") != "1" {
		t.Skip("starts a cluster of its own beside the shared one: run alone by make test-timing (CASSBENCH_ALONE_TESTS=1), which make test runs after the other packages")
	}
	ctx := context.Background()
	var log bytes.Buffer
	c := &Cluster{Layout: DefaultLayout(), Log: &log}
	c.Dir = t.TempDir()
	c.Offset = 20
	t.Cleanup(func() {
		c.stopNodes(true, c.KnownNodes()...)
		if t.Failed() {
			t.Logf("log:\n%s", log.String())
		}
	})
	opts := DefaultOptions()

	start := time.Now()
	if err := c.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	t.Logf("cold start of one node: %.1fs", time.Since(start).Seconds())
	pid := c.PID(1)
	if pid == 0 || !c.Check(opts) {
		t.Fatalf("after Start: pid %d, check %v, cluster.conf:\n%s", pid, c.Check(opts), c.ClusterConf())
	}
	start = time.Now()
	if err := c.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second || c.PID(1) != pid {
		t.Errorf("a start of the running cluster took %v and left pid %d (was %d)", d, c.PID(1), pid)
	}
	t.Logf("start of the running node: %.2fs", time.Since(start).Seconds())

	// Growing adds a node that bootstraps; decommissioning removes it again.
	opts.Nodes = 2
	if err := c.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "growing the cluster from 1 to 2 node(s)") || c.upCount(ctx, 1) != 2 {
		t.Fatalf("node 1 does not see 2 nodes Up/Normal after growing; log:\n%s", log.String())
	}
	if err := c.Decommission(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if c.Running(2) || c.upCount(ctx, 1) != 1 {
		t.Fatalf("after decommission: node 2 running %v, node 1 sees %d Up/Normal", c.Running(2), c.upCount(ctx, 1))
	}

	// A frozen node keeps its socket and answers nothing.
	if err := c.Pause(1); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	err := Probe(short, c.NodeIP(1), CQLPort, "", "")
	cancel()
	if resumeErr := c.Resume(1); resumeErr != nil {
		t.Fatal(resumeErr)
	}
	if err == nil {
		t.Fatal("a paused node answered CQL")
	}
	if err := Probe(ctx, c.NodeIP(1), CQLPort, "", ""); err != nil {
		t.Fatalf("resumed node: %v", err)
	}

	var status bytes.Buffer
	c.Status(ctx, &status)
	if !strings.Contains(status.String(), "node1 127.0.0.21 running pid ") || !strings.Contains(status.String(), "CQL up, jmx 127.0.0.1:7220") {
		t.Errorf("status:\n%s", status.String())
	}

	// A user of the running cluster takes it as it is and holds users.lock shared meanwhile.
	use := exec.Command("sh", "-c", `test "$`+UsingEnv+`" = 1 && ! flock -n -x "$0" true`, c.LockPath("users.lock"))
	if err := c.Use(ctx, opts, use); err != nil {
		t.Errorf("the command run by Use saw no variable or could lock users.lock exclusively: %v", err)
	}
	if !strings.Contains(log.String(), "using its node 1 (127.0.0.21) as it is") || c.PID(1) != pid {
		t.Errorf("Use did not take the running cluster as it is (pid %d, was %d)", c.PID(1), pid)
	}

	// A restart with a setting applies it and marks the cluster as changed.
	if err := c.Restart(ctx, Options{Node: 1, Heap: "512M", Sets: []string{"concurrent_writes=48"}, Timeout: opts.Timeout}); err != nil {
		t.Fatal(err)
	}
	if got := setting(t, c.NodeIP(1), "concurrent_writes"); got != "48" {
		t.Errorf("concurrent_writes after restart = %q, want 48", got)
	}
	opts.Nodes = 1
	if c.Check(opts) {
		t.Error("Check still matches plain options after a node was restarted with a setting")
	}
	if err := c.Start(ctx, opts); !errors.Is(err, ErrOtherOptions) {
		t.Errorf("Start with other options while nodes run = %v, want ErrOtherOptions", err)
	}

	if err := c.Stop(ctx, Options{}); err != nil {
		t.Fatal(err)
	}
	if c.Running(1) || len(c.RunningNodes()) != 0 {
		t.Fatalf("nodes %v run after Stop", c.RunningNodes())
	}
}

func setting(t *testing.T, host, name string) string {
	t.Helper()
	cfg := gocql.NewCluster(host)
	cfg.Logger = quiet{}
	cfg.Timeout = 10 * time.Second
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v string
	if err := s.Query("SELECT value FROM system_views.settings WHERE name = ?", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
