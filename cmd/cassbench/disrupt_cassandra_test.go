package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// disruptSpec writes at ONE to a keyspace with a replica on each of the two nodes: with one
// node stopped the other still acknowledges every write (and keeps hints for the stopped
// one), so what the fault costs shows in latency and in the requests in flight on the stopped
// node, not in writes refused as Unavailable, which a QUORUM write would be for the whole
// outage. The open loop keeps the rate through the fault, so a stall shows as latency.
const disruptSpec = `apiVersion: cassbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  name: disrupt
spec:
  datacenterRef:
    name: dc1
  schema:
    keyspace: cli_disrupt
    recreate: true
    replication:
      strategy: SimpleStrategy
      factor: 2
    table:
      profile: key-value
  workload:
    writeConsistency: ONE
  writers:
    replicas: 2
    concurrency: 4
    rate: 200
    duration: 150s
`

// cassbench run --disrupt stops node 2 of a private 2-node cluster 15 s into the window and
// starts it again at 25 s (the start returns once it serves CQL and is in the ring); the run
// succeeds and reports the fault with figures consistent with its times and the hints node 1
// kept for node 2 (checkHints), node 1 delivers every hint it stored once node 2 is back, seen
// in its hints directory during and after the run (hintsWatch), and the node was started
// again, runs and answers afterwards.
// The window is 150 s so that a node 2 slow to start on a loaded machine (it has taken up to
// 109 s) still leaves time to see its hints delivered.
func TestRunStopsAndStartsANodeInsideItsWindow(t *testing.T) {
	c := cassandra.Private(t, 80, cassandra.Options{Nodes: 2})
	layout := c.Layout()
	t.Setenv("CASSBENCH_CASSANDRA_DIR", layout.Dir)
	t.Setenv("CASSBENCH_CASSANDRA_OFFSET", strconv.Itoa(layout.Offset))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "disrupt.yaml")
	if err := os.WriteFile(file, []byte(disruptSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	const schedule = "stop-node 2 at 15s; start-node 2 at 25s"
	args := []string{"-f", file, "-o", "json", "--hosts", strings.Join(c.Hosts, ","), "--port", strconv.Itoa(c.Port),
		"--disrupt", schedule, "--objective-p99", "50ms"}
	hints := watchHints(filepath.Join(layout.NodeDir(1), "hints"))
	defer hints.stop()
	var out bytes.Buffer
	code := runMain(ctx, args, &out)
	t.Logf("cassbench run --disrupt %q -o json:\n%s", schedule, out.String())
	if code != 0 {
		t.Fatalf("cassbench run --disrupt exited %d", code)
	}
	var doc struct {
		Results *cbv1.Results `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	res := doc.Results
	if res == nil || res.Timeline == nil || len(res.Disruptions) != 1 {
		t.Fatalf("want one disruption over a timeline, got results %+v", res)
	}
	d := res.Disruptions[0]
	t.Logf("disruption: %+v; run: %d operations, %d errors", d, res.Operations, res.Errors)
	if d.Name != schedule || d.EndMillis <= d.StartMillis || d.ObjectiveP99Micros != 50000 {
		t.Errorf("disruption %+v: want %q with its end after its start and the 50ms objective", d, schedule)
	}
	if d.BaselineP99Micros <= 0 || d.PeakP99Micros <= 0 {
		t.Errorf("disruption %+v: want the p99 before it and its peak", d)
	}
	var failed int64
	for _, p := range res.Timeline.Points {
		failed += p.Errors
	}
	if d.Errors+d.ErrorsAfter > failed {
		t.Errorf("disruption counts %d+%d errors, more than the timeline's %d", d.Errors, d.ErrorsAfter, failed)
	}
	// Whether the p99 recovers inside the window depends on how fast the node starts again
	// on this machine (at load 20 on two cores it took 109 s, past the window's end), so the
	// test asks only that the figure is consistent with the times.
	if d.Recovered && d.EndMillis+d.RecoveryMillis > res.WindowMillis+res.StartSpreadMillis {
		t.Errorf("disruption %+v: recovered after the window (%d ms) ended", d, res.WindowMillis)
	}
	if !d.Recovered && d.RecoveryMillis != 0 {
		t.Errorf("disruption %+v: a recovery time without a recovery", d)
	}
	if res.Server != nil {
		for _, n := range res.Server.Nodes {
			t.Logf("node %s: %d hint files waiting at the window's end, %d dropped", n.Node, n.Hints, n.Dropped)
		}
	}
	checkHints(t, res, d)
	hints.checkDelivered(t, hintsDeliveryWait)

	// The node was started again by the run (each start writes a marker to its stdout.log),
	// and it runs and answers CQL.
	log, err := os.ReadFile(filepath.Join(layout.NodeDir(2), "logs", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "starting node 2\n"); n != 2 {
		t.Errorf("node 2 was started %d times, want 2 (the cluster's start and the run's start-node)", n)
	}
	if !layout.Running(2) {
		t.Fatal("node 2 does not run after the run")
	}
	s, err := cql.Connect(cql.Options{Hosts: c.Hosts[1:2], Port: c.Port, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("node 2 after the run: %v", err)
	}
	defer s.Close()
	var version string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		t.Fatalf("node 2 after the run: %v", err)
	}
}

// hintsDeliveryLag bounds how long after a stopped node serves again its hints are seen
// delivered: node 1 closes the hints file it is writing at a dispatch check (every 10 s),
// sends it at the next one, deletes it once sent, and the writer reads its nodes every 5 s.
const hintsDeliveryLag = 40 * time.Second

// checkHints: node 1 acknowledged every write at ONE while node 2 was down and stored a hint
// for node 2 with each, which the server evidence counts in its hints directory; once node 2
// served again with time left in the window, node 1 delivered them. Nothing was hinted before
// the fault, so what was delivered was stored during it.
func checkHints(t *testing.T, res *cbv1.Results, d cbv1.DisruptionResult) {
	t.Helper()
	t.Logf("hints around the fault: %d stored, %d delivered", d.HintsStored, d.HintsDelivered)
	if d.HintsStored == 0 {
		t.Errorf("disruption %+v: no hints stored while node 2 was down", d)
	}
	if d.HintsDelivered > d.HintsStored {
		t.Errorf("disruption %+v: more hints delivered than stored", d)
	}
	left := time.Duration(res.WindowMillis-d.EndMillis) * time.Millisecond
	if left < hintsDeliveryLag {
		t.Logf("node 2 served again %s before the window's end, too late to see its hints delivered (%s)", left, hintsDeliveryLag)
		return
	}
	if d.HintsDelivered == 0 {
		t.Errorf("disruption %+v: node 2 served again %s before the window's end, but no hints were delivered", d, left)
	}
}
