// Package localcassandra runs a real Apache Cassandra cluster (5.0 by default; 4.0 and 4.1 too) on this machine's loopback
// addresses, built from org.apache.cassandra:cassandra-all and its runtime dependencies on
// Maven Central (no tarball, no Docker). Node i listens on 127.0.0.i (CQL 9042, storage 7000,
// JMX 127.0.0.1:7199+i).
//
// Tests (internal/testutil/cassandra, test/local), `make demo`, `make local-cluster` and
// hack/bench-writer.sh reach it either in process or through `cassbench local-cassandra`,
// which hack/cassandra.sh runs with the same command line it always had.
//
// Layout (CACHE = $CASSBENCH_CACHE, default ~/.cache/cassbench):
//
//	CACHE/cassandra/<version>/lib/*.jar             cassandra-all + runtime deps (incl. jamm agent)
//	CACHE/cassandra/<version>/conf/cassandra.yaml   base config (cassandra-all ships no conf/)
//	CACHE/cassandra/nodes/cluster.conf              options the running cluster was started with
//	CACHE/cassandra/nodes/node<i>/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs}, cassandra.pid
//	CACHE/cassandra/{users.lock,cluster.lock,.script.lock}
//
// The layout, the pid files and the locks are those of the earlier shell implementation, so
// that processes of either kind share one cluster safely.
package localcassandra

import (
	"os"
	"path/filepath"
	"strconv"
)

// DefaultVersion is the Cassandra version run unless CASSBENCH_CASSANDRA_VERSION (or its
// older name CASSANDRA_VERSION) names another: 4.0.x, 4.1.x and 5.0.x run (versions.go).
const DefaultVersion = "5.0.9"

// VersionEnv names the Cassandra version of the local cluster.
const VersionEnv = "CASSBENCH_CASSANDRA_VERSION"

// Ports every node listens on (each on its own address) and the first JMX port.
const (
	CQLPort     = 9042
	StoragePort = 7000
	jmxBase     = 7199
)

// Layout says where a cluster lives and which addresses its nodes take.
type Layout struct {
	// Cache holds the fetched versions (<Cache>/<version>/lib) and the fetch lock.
	Cache string
	// Dir holds the nodes (<Dir>/nodes) and the cluster's lock files. Usually Cache.
	Dir     string
	Version string
	// Offset moves node i to 127.0.0.(Offset+i) and JMX port 7199+Offset+i, so that a second
	// cluster (in another Dir) can run beside the shared one.
	Offset int
}

// DefaultLayout reads CASSBENCH_CACHE, CASSBENCH_CASSANDRA_VERSION (else CASSANDRA_VERSION),
// and CASSBENCH_CASSANDRA_DIR and
// CASSBENCH_CASSANDRA_OFFSET (a separate cluster beside the shared one).
func DefaultLayout() Layout {
	cache := os.Getenv("CASSBENCH_CACHE")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "cassbench")
		} else {
			cache = filepath.Join(os.TempDir(), "cassbench-cache")
		}
	}
	l := Layout{Cache: filepath.Join(cache, "cassandra"), Version: os.Getenv(VersionEnv)}
	if l.Version == "" {
		l.Version = os.Getenv("CASSANDRA_VERSION")
	}
	if l.Version == "" {
		l.Version = DefaultVersion
	}
	l.Dir = l.Cache
	if d := os.Getenv("CASSBENCH_CASSANDRA_DIR"); d != "" {
		l.Dir = d
	}
	if o, err := strconv.Atoi(os.Getenv("CASSBENCH_CASSANDRA_OFFSET")); err == nil && o > 0 {
		l.Offset = o
	}
	return l
}

// Dist is the directory of the fetched version.
func (l Layout) Dist() string { return filepath.Join(l.Cache, l.Version) }

// Lib holds the jars.
func (l Layout) Lib() string { return filepath.Join(l.Dist(), "lib") }

// Nodes holds cluster.conf and the node directories.
func (l Layout) Nodes() string { return filepath.Join(l.Dir, "nodes") }

// NodeDir is node i's directory.
func (l Layout) NodeDir(i int) string { return filepath.Join(l.Nodes(), "node"+strconv.Itoa(i)) }

// NodeIP is node i's address.
func (l Layout) NodeIP(i int) string { return "127.0.0." + strconv.Itoa(l.Offset+i) }

// JMXPort is node i's JMX port on 127.0.0.1.
func (l Layout) JMXPort(i int) int { return jmxBase + l.Offset + i }

// LockPath is the path of one of the cluster's lock files: users.lock (held shared by every
// process using the cluster, exclusively by one that stops or replaces nodes), cluster.lock
// (serialises test processes' decisions) or .script.lock (serialises changes to the nodes).
func (l Layout) LockPath(name string) string { return filepath.Join(l.Dir, name) }

func (l Layout) fetched() bool {
	_, err := os.Stat(filepath.Join(l.Dist(), ".complete"))
	return err == nil
}

// javaFetched says whether the Java of the release is there (java on PATH is not checked).
func (l Layout) javaFetched() bool {
	if !filepath.IsAbs(l.Java()) {
		return true
	}
	_, err := os.Stat(l.Java())
	return err == nil
}

// Fetched says whether the layout's version and its Java are in the cache: tests of a
// version other than the default skip when it is not.
func (l Layout) Fetched() bool { return l.fetched() && l.javaFetched() }
