package cassandra

import (
	"context"
	"os"
	"testing"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// AloneEnv must be 1 for a test to start a cluster of its own: two more JVMs starting beside
// the shared cluster starved the shared nodes of other packages' tests until their writers'
// connections timed out, so such tests run alone (make test-timing).
const AloneEnv = "CASSBENCH_ALONE_TESTS"

// Alone skips the test unless it runs alone (AloneEnv=1).
func Alone(t testing.TB) {
	t.Helper()
	if os.Getenv(AloneEnv) != "1" {
		t.Skip("starts a cluster of its own beside the shared one: run alone by make test-timing (" + AloneEnv + "=1), which make test runs after the other packages")
	}
}

// Private starts a cluster of opts that only the calling test uses: its nodes and lock files
// in a directory of the test's, node i on 127.0.0.(offset+i) beside the shared cluster's
// 127.0.0.1 and up. Each test gives its own offset (TestClusterLifecycle takes 20), since two
// clusters on one address would take each other's ports. The nodes are killed when the test
// ends. The test must run alone (see Alone).
func Private(t testing.TB, offset int, opts Options) *Cluster {
	t.Helper()
	tier.Require(t, tier.Cassandra)
	Alone(t)
	l := localcassandra.DefaultLayout()
	l.Dir, l.Offset = t.TempDir(), offset
	if opts.Version != "" {
		l.Version = opts.Version
	}
	// Registered after TempDir's own cleanup, so it runs first: the nodes are gone before
	// their directory is removed.
	t.Cleanup(func() { stopPrivate(t, l) })
	return start(t, l, opts)
}

// stopPrivate kills the nodes of a private cluster and lets go of its lock file.
func stopPrivate(t testing.TB, l localcassandra.Layout) {
	t.Helper()
	if err := doErr(t, l, "stop", func(lc *localcassandra.Cluster) error {
		return lc.Stop(context.Background(), localcassandra.Options{Kill: true})
	}); err != nil {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if u := used[l.Dir]; u != nil {
		_ = u.users.Close()
		delete(used, l.Dir)
	}
}

// RequireVersion skips the test unless Cassandra version (and the Java it runs on) is in the
// cache: fetching one takes minutes of Maven Central, which the target named does.
func RequireVersion(t testing.TB, version, target string) {
	t.Helper()
	l := localcassandra.DefaultLayout()
	l.Version = version
	if !l.Fetched() {
		t.Skipf("Cassandra %s is not in %s: `make %s` fetches it (and its Java) and runs this test", version, l.Cache, target)
	}
}

// Layout is where the cluster's nodes and lock files live, for commands under test that find
// the local cluster through CASSBENCH_CASSANDRA_DIR and CASSBENCH_CASSANDRA_OFFSET.
func (c *Cluster) Layout() localcassandra.Layout { return c.layout }
