package cassandra

import (
	"net"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/nodeproc"
)

// Start honours CASSBENCH_CASSANDRA_DIR and CASSBENCH_CASSANDRA_OFFSET as hack/cassandra.sh
// does, so a test process can run on a cluster of its own: the node answers CQL on
// 127.0.0.(offset+1), the process listening there is the one whose pid file is in that
// directory, and this process holds that directory's users.lock, not only the shared one's.
func TestStartHonoursTheClusterVariables(t *testing.T) {
	Alone(t)
	dir := t.TempDir()
	t.Setenv("CASSBENCH_CASSANDRA_DIR", dir)
	t.Setenv("CASSBENCH_CASSANDRA_OFFSET", "30")
	l := localcassandra.DefaultLayout()
	t.Cleanup(func() { stopPrivate(t, l) })

	c := Start(t, Options{Nodes: 1})
	if diff := cmp.Diff([]string{"127.0.0.31"}, c.Hosts); diff != "" {
		t.Fatalf("hosts (-want +got):\n%s", diff)
	}
	if _, err := cqlOptions(net.JoinHostPort(c.Hosts[0], strconv.Itoa(c.Port))); err != nil {
		t.Fatalf("CQL on %s: %v", c.Hosts[0], err)
	}
	pid := l.PID(1)
	p, ok := nodeproc.FindProcess(c.Hosts[0], c.Port)
	if pid == 0 || !ok || p.PID != pid {
		t.Errorf("the node listening on %s:%d is %+v (found %v); the pid file in %s names %d", c.Hosts[0], c.Port, p, ok, dir, pid)
	}
	other, err := localcassandra.OpenLock(filepath.Join(dir, "users.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	if other.Try(localcassandra.Exclusive) {
		t.Errorf("%s could be locked exclusively: this process does not hold the private cluster's users.lock", other.Name())
	}
}
