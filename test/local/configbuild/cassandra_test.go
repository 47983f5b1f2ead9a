package configbuild

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cassbench/cassbench/internal/localcassandra"
	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// TestCassandraLoadsRenderedYAML renders cassandra.yaml over the local nodes' Cassandra 5.0
// base and loads it with Cassandra's own YamlConfigurationLoader (cassandra tier: Java and
// the cached jars; no node is started). It shows that the quoted numbers upstream writes are
// read as numbers, and that a misspelt key, which the builder passes on, makes Cassandra
// refuse the file, which is how a typo fails a run on a real datacenter.
func TestCassandraLoadsRenderedYAML(t *testing.T) {
	tier.Require(t, tier.Cassandra)
	ctx := context.Background()
	var fetchLog bytes.Buffer
	lc := localcassandra.New(&fetchLog)
	if err := lc.Fetch(ctx); err != nil {
		t.Fatalf("fetching Cassandra: %v\n%s", err, fetchLog.String())
	}
	dir := t.TempDir()
	var files []string
	for _, section := range []string{
		`{"concurrent_writes": 64, "num_tokens": 16, "auto_snapshot": false}`,
		`{"concurent_writes": 64}`, // misspelt
	} {
		in, err := ParseInput(`{"cluster-info": {"name": "bench", "seeds": "bench-seed-service"}, "datacenter-info": {"name": "dc1"}, "cassandra-yaml": ` + section + `}`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := CassandraYAML([]byte(localcassandra.BaseYAML), in, node4)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, strconv.Itoa(len(files))+".yaml")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	src, err := filepath.Abs("testdata/LoadYaml.java")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "java", append([]string{"-cp", filepath.Join(lc.Lib(), "*"), src}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("java: %v\n%s", err, stderr.String())
	}
	var lines []string // the loader's own log goes to stdout too
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "error ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("loader printed %q, want one line per file", stdout.String())
	}
	// The local base sets rpc_address: 127.0.0.1, which the operator's override leaves alone
	// (it replaces only localhost or an empty value).
	want := "ok concurrent_writes=64 num_tokens=16 auto_snapshot=false cluster_name=bench listen_address=10.0.0.5 rpc_address=127.0.0.1 endpoint_snitch=GossipingPropertyFileSnitch seeds=bench-seed-service"
	if lines[0] != want {
		t.Errorf("rendered config loads as\n%s\nwant\n%s", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "error ") || !strings.Contains(lines[1], "concurent_writes") {
		t.Errorf("a misspelt key loads as %q, want an error naming it", lines[1])
	}
}
