package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

const processesSpec = `apiVersion: cassbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  name: processes
spec:
  datacenterRef:
    name: dc1
  schema:
    keyspace: KEYSPACE
    recreate: true
    replication:
      strategy: SimpleStrategy
      factor: 1
    table:
      profile: key-value
  writers:
    replicas: 2
    concurrency: 2
    duration: 2s
`

// cassbench run --processes runs its writers as cassbench-writer processes, the binary the
// writer pods run, found on PATH here (the test binary has none beside it); without one it
// stops before setup creates anything, saying so.
func TestRunProcessesStartTheWriterBinary(t *testing.T) {
	c := cassandra.Start(t, cassandra.Options{Nodes: 2, Auth: true})
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	real := filepath.Join(dir, "real", writerBinaryName)
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", real, "../cassbench-writer").CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", writerBinaryName, err, out)
	}
	// A wrapper on PATH records each start, then runs the real binary.
	invocations := filepath.Join(dir, "invocations")
	wrapper := filepath.Join(dir, "path", writerBinaryName)
	script := "#!/bin/sh\necho \"$0 $*\" >> " + invocations + "\nexec " + real + " \"$@\"\n"
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil { // #nosec G306 -- the test's own script
		t.Fatal(err)
	}
	run := func(keyspace string) (int, *bytes.Buffer) {
		file := filepath.Join(dir, keyspace+".yaml")
		if err := os.WriteFile(file, []byte(strings.Replace(processesSpec, "KEYSPACE", keyspace, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		code := runMain(ctx, []string{"-f", file, "-o", "json", "--processes", "--hosts", strings.Join(c.Hosts, ","),
			"--port", strconv.Itoa(c.Port), "--username", c.Username, "--password", c.Password}, &out)
		return code, &out
	}

	t.Setenv("PATH", filepath.Dir(wrapper)+string(os.PathListSeparator)+os.Getenv("PATH"))
	code, out := run("cli_processes")
	if code != 0 {
		t.Fatalf("cassbench run --processes exited %d", code)
	}
	obj, err := report.Read(out)
	if err != nil {
		t.Fatalf("reading the results: %v", err)
	}
	if res := obj.(*cbv1.BenchmarkRun).Status.Results; res == nil || res.WritersReported != 2 || res.Operations == 0 {
		t.Fatalf("results %+v: want 2 writers reported and operations measured", res)
	}
	started, err := os.ReadFile(invocations)
	if err != nil {
		t.Fatalf("no writer process was started through %s: %v", wrapper, err)
	}
	lines := strings.Split(strings.TrimSpace(string(started)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d writer processes started, want 2:\n%s", len(lines), started)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, wrapper+" --index ") {
			t.Errorf("writer process %d started as %q, want %s with its flags", i, l, wrapper)
		}
	}

	t.Setenv("PATH", dir) // holds no cassbench-writer
	const untouched = "cli_processes_none"
	if code, _ := run(untouched); code != 1 {
		t.Errorf("cassbench run --processes with no writer binary exited %d, want 1", code)
	}
	s, err := cql.Connect(cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.Query("SELECT COUNT(*) FROM system_schema.keyspaces WHERE keyspace_name = ?", untouched).Scan(&n); err != nil || n != 0 {
		t.Errorf("keyspace %s: %d found (%v); a run refused before setup must create nothing", untouched, n, err)
	}
}
