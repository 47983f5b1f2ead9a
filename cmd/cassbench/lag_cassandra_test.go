package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/replag"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/writer"
)

// lagSpec writes in dc1 at ONE to a keyspace whose two replicas (SimpleStrategy over the two
// nodes) are one in each datacenter, so that a write acknowledged by dc1's node reaches dc2's
// by replication alone.
const lagSpec = `apiVersion: cassbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  name: lag
spec:
  datacenterRef:
    name: dc1
  schema:
    keyspace: cli_lag
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
    concurrency: 2
    duration: 3s
`

// cassbench run --datacenter dc1 --observe-datacenter dc2 reads a sampled share of the
// writers' acknowledged inserts back in dc2 and prints their replication lag below the table,
// every key seen; with dc2's only node stopped while the writers write, the keys written
// since are counted as censored rather than given a lag, and the report says dc2 is behind.
func TestRunMeasuresReplicationLagToAnotherDatacenter(t *testing.T) {
	c := cassandra.Private(t, 70, cassandra.Options{Nodes: 2, Datacenters: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "lag.yaml")
	if err := os.WriteFile(file, []byte(lagSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	connArgs := []string{"--hosts", strings.Join(c.Hosts, ","), "--port", strconv.Itoa(c.Port), "--datacenter", "dc1"}
	var out bytes.Buffer
	code := runMain(ctx, append([]string{"-f", file, "--observe-datacenter", "dc2", "--lag-sample", "0.05", "-o", "json"}, connArgs...), &out)
	t.Logf("cassbench run -o json:\n%s", out.String())
	if code != 0 {
		t.Fatalf("cassbench run --observe-datacenter dc2 exited %d", code)
	}
	var doc struct {
		Results *cbv1.Results `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Results == nil || doc.Results.ReplicationLag == nil {
		t.Fatalf("no replication lag in the results")
	}
	if l := doc.Results.ReplicationLag; l.ObservedDatacenter != "dc2" || l.SampleShare != "0.05" || l.Seen == 0 || l.Censored != 0 ||
		l.Lag == nil || l.Lag.Max < l.Lag.P50 || l.Lag.Max <= 0 || l.BoundMicros < l.ClockErrorMicros {
		t.Errorf("both up: replication lag %+v (lag %+v); want dc2 at 0.05, some keys seen with their percentiles and bound, none censored", l, l.Lag)
	}

	// dc2 goes down after the observer connected, as it would in the middle of a run.
	var conn cli.ConnFlags
	fs := flag.NewFlagSet("conn", flag.ContinueOnError)
	conn.Register(fs)
	if err := fs.Parse(connArgs); err != nil {
		t.Fatal(err)
	}
	spec, err := loadSpec(file)
	if err != nil {
		t.Fatal(err)
	}
	l := lagFlags{observe: "dc2", sample: 0.05, limit: 3 * time.Second, poll: 10 * time.Millisecond}
	o := conn.Options()
	o.LocalDatacenter = "dc2"
	s, err := replag.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	lag, err := startLagOn(ctx, l, spec, nil, s)
	if err != nil {
		t.Fatal(err)
	}
	// The start barrier is kept at QUORUM, so the node stops once the writers write: the
	// first acknowledged key says they passed it.
	spec.Writers.Duration = &metav1.Duration{Duration: 20 * time.Second}
	writing := make(chan struct{})
	var once sync.Once
	tap := *lag.Tap()
	tap.Expect = func(key []any, acked time.Time, clock writer.ClockOffset) {
		once.Do(func() { close(writing) })
		lag.tap.Writer.Expect(key, acked, clock)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, sum := range runInProcess(ctx, spec, &conn, "lag-down", spec.Writers.Replicas, time.Minute, nil, &tap, nil) {
			if sum.Error != "" {
				t.Logf("writer %d with dc2 down: %s", sum.Index, sum.Error)
			}
		}
	}()
	select {
	case <-writing:
	case <-done:
		t.Fatal("the writers wrote nothing")
	}
	c.StopNode(t, 2)
	<-done
	res := lag.finish(ctx)
	var text bytes.Buffer
	if err := report.LagText(&text, lag.results(res)); err != nil {
		t.Fatal(err)
	}
	t.Logf("dc2 down:\n%s", text.String())
	// Keys acknowledged before the node stopped may have been seen; those after cannot be.
	if res.Censored == 0 || res.Lag.Count() != uint64(res.Seen) || res.ReadErrors == 0 {
		t.Errorf("dc2 down: %d seen, %d censored, %d lags, %d read errors; want keys censored, a lag for each seen one alone, and failed reads",
			res.Seen, res.Censored, res.Lag.Count(), res.ReadErrors)
	}
	// Failed reads back off (replag's maxErrorPause): in a 3 s limit a key is read at most
	// about ten times however fast the failures come (188 a key before the back-off).
	if keys := res.Seen + res.Censored; res.ReadErrors > 16*keys {
		t.Errorf("dc2 down: %d failed reads for %d keys: the observer does not back off", res.ReadErrors, keys)
	}
	if !strings.Contains(text.String(), "were not readable in dc2 within 3s") {
		t.Errorf("dc2 down: the report does not say that dc2's keys were not readable")
	}
}
