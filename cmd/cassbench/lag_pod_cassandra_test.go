package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/podenv"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// acrossSpec is a run across dc1 (its writer) and dc2 (an observer), replicated to both, as
// the manager hands it to its setup and writer pods.
const acrossSpec = `apiVersion: cassbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  name: across
spec:
  datacenters:
  - name: dc1
    writers: 1
  - name: dc2
    observers: 1
  replicationLag:
    sampleShare: "0.05"
    limit: 10s
  schema:
    keyspace: cli_across
    recreate: true
    replication:
      strategy: NetworkTopologyStrategy
      datacenters:
      - {name: dc1, factor: 1}
      - {name: dc2, factor: 1}
    table:
      profile: key-value
  workload:
    writeConsistency: LOCAL_ONE
  writers:
    replicas: 1
    concurrency: 2
    duration: 3s
`

// A writer pod of a run across datacenters, given both datacenters' contact points
// (CASSBENCH_PLACEMENT, as the manager sets it), writes in dc1 and reads its sampled inserts
// back in dc2, which spec.datacenters gives observers; its termination message carries what
// it saw there, every key seen with its lag and bound.
func TestWriterPodObservesAnotherDatacenter(t *testing.T) {
	c := cassandra.Private(t, 110, cassandra.Options{Nodes: 2, Datacenters: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	file := filepath.Join(dir, "across.yaml")
	if err := os.WriteFile(file, []byte(acrossSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(c.Port)
	dc1, dc2 := c.Datacenters["dc1"][0], c.Datacenters["dc2"][0]
	if code := setupCommand(ctx, []string{"-f", file, "--hosts", dc1, "--port", port, "--datacenter", "dc1",
		"--termination-log", filepath.Join(dir, "setup.log")}); code != 0 {
		t.Fatalf("cassbench setup exited %d", code)
	}
	t.Setenv(podenv.Placement, podenv.FormatPlacement([]podenv.PlacementEntry{
		{Name: "dc1", Datacenter: "dc1", Host: dc1, Port: int32(c.Port)},
		{Name: "dc2", Datacenter: "dc2", Host: dc2, Port: int32(c.Port)},
	}))
	// Setup replicates the keyspace to both datacenters of schema.replication.datacenters.
	ds, err := cql.Connect(cql.Options{Hosts: []string{dc2}, Port: c.Port, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]string
	err = ds.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'cli_across'").Scan(&rep)
	ds.Close()
	if err != nil || rep["dc1"] != "1" || rep["dc2"] != "1" {
		t.Fatalf("keyspace cli_across replicated %v (%v), want dc1 and dc2 at 1", rep, err)
	}
	termLog := filepath.Join(dir, "writer.log")
	if code := cli.Writer(ctx, "cassbench writer", []string{"-f", file, "--run-id", "across", "--index", "0",
		"--metrics-addr", "", "--termination-log", termLog}, admitting); code != 0 {
		t.Fatalf("cassbench writer exited %d", code)
	}
	b, err := os.ReadFile(termLog)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := summary.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Replag
	if r == nil {
		t.Fatalf("the writer's summary has no replication lag: %s", b)
	}
	if r.Datacenter != "dc2" || r.Seen == 0 || r.Censored != 0 || r.Lag == nil || r.Lag.Count() != uint64(r.Seen) {
		t.Errorf("replication lag %+v; want dc2 with some keys seen, each with its lag, none censored", r)
	}
	// One in 20 acknowledged inserts is read back (sampleShare 0.05), counted per load goroutine.
	if writes := sum.Writes.OK; r.Seen > writes/20+2 || r.Seen < writes/20-2 {
		t.Errorf("%d keys observed of %d inserts; want one in 20", r.Seen, writes)
	}
}
