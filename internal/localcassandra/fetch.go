package localcassandra

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// depPlugin copies a project's dependencies: Maven resolves cassandra-all's runtime
// dependency tree (parents, dependency management, exclusions) as the Cassandra build does.
const depPlugin = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

// Fetch downloads org.apache.cassandra:cassandra-all of the layout's version and its runtime
// dependencies from Maven Central into Dist()/lib and writes the base configuration of its
// release, and for 4.0 and 4.1 their Java 11 (fetchJava); it does nothing when they are
// there already. It needs mvn once (and pip once for Java 11).
func (c *Cluster) Fetch(ctx context.Context) error {
	if _, err := ParseRelease(c.Version); err != nil {
		return err
	}
	if c.fetched() && c.javaFetched() {
		return nil
	}
	lock, err := OpenLock(filepath.Join(c.Cache, ".script.lock"))
	if err != nil {
		return err
	}
	defer func() { _ = lock.Close() }()
	if err := lock.Wait(ctx, Exclusive, 30*time.Minute, nil); err != nil {
		return err
	}
	if err := c.fetchJava(ctx); err != nil || c.fetched() {
		return err
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		return fmt.Errorf("mvn not found (needed once to fetch cassandra-all from Maven Central)")
	}
	tmp, err := os.MkdirTemp(c.Cache, ".fetch.")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	c.logf("fetching org.apache.cassandra:cassandra-all:%s and its runtime dependencies", c.Version)
	pom := `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cassbench.local</groupId>
  <artifactId>cassandra-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>` + c.Version + `</version>
    </dependency>
  </dependencies>
</project>
`
	if err := os.WriteFile(filepath.Join(tmp, "pom.xml"), []byte(pom), 0o644); err != nil {
		return err
	}
	lib := filepath.Join(tmp, "lib")
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "mvn", "-B", "-q", "-f", filepath.Join(tmp, "pom.xml"),
		depPlugin+":copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory="+lib)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mvn could not fetch cassandra-all %s: %w\n%s", c.Version, err, tail(out.String(), 40))
	}
	if _, err := os.Stat(filepath.Join(lib, "cassandra-all-"+c.Version+".jar")); err != nil {
		return fmt.Errorf("cassandra-all jar missing after mvn")
	}
	if jars, _ := filepath.Glob(filepath.Join(lib, "jamm-*.jar")); len(jars) == 0 {
		return fmt.Errorf("jamm agent jar missing after mvn")
	}
	dist := c.Dist()
	if err := os.RemoveAll(dist); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dist, "conf"), 0o755); err != nil {
		return err
	}
	if err := os.Rename(lib, c.Lib()); err != nil {
		return err
	}
	for name, text := range map[string]string{"cassandra.yaml": BaseYAMLFor(c.Release()), "logback-tools.xml": toolsLogback} {
		if err := os.WriteFile(filepath.Join(dist, "conf", name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dist, ".complete"), nil, 0o644); err != nil {
		return err
	}
	jars, _ := filepath.Glob(filepath.Join(c.Lib(), "*.jar"))
	c.logf("fetched %d jars into %s", len(jars), c.Lib())
	return nil
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
