package writer_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/writer"
)

// Every test of this package shares one cluster: two nodes (so a node can be stopped under
// RF 2) with password authentication (so wrong credentials can be refused).
var clusterOptions = cassandra.Options{Nodes: 2, Auth: true}

// testKeyspaces may be dropped by the tests' recreating setups whoever created them: the
// cluster is shared with other builds, whose keyspaces of these names may predate the marker
// of keyspaces cassbench created.
var testKeyspaces = []string{"it_*"}

func cluster(t *testing.T) *cassandra.Cluster {
	t.Helper()
	return cassandra.Start(t, clusterOptions)
}

func connOptions(c *cassandra.Cluster) cql.Options {
	return cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password}
}

// spec builds a defaulted spec for a test keyspace: short windows, modest concurrency, a
// keyspace dropped and created anew.
func spec(keyspace string, configure func(*builders.BenchmarkRunBuilder)) *cbv1.BenchmarkRunSpec {
	b := builders.MakeBenchmarkRun(keyspace, "default").Keyspace(keyspace).Duration(2 * time.Second).Concurrency(16)
	if configure != nil {
		configure(b)
	}
	s := b.Obj().Spec
	s.Schema.Recreate = true
	defaulted, err := admission.DefaultRunSpec(&s)
	if err != nil {
		panic(err)
	}
	return defaulted
}

func setUp(t *testing.T, c *cassandra.Cluster, s *cbv1.BenchmarkRunSpec) *summary.SetupReport {
	t.Helper()
	report, err := setup.Run(context.Background(), setup.Config{Spec: s, AllowDrop: testKeyspaces, Conn: connOptions(c), Log: testLog{t}})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	return report
}

// runWriters runs the spec's writers in goroutines, each with its own session, as
// `cassbench run` does.
func runWriters(ctx context.Context, t *testing.T, c *cassandra.Cluster, s *cbv1.BenchmarkRunSpec, tweak ...func(*writer.Config)) ([]*summary.Summary, []error) {
	t.Helper()
	n := s.Writers.Replicas
	sums, errs := make([]*summary.Summary, n), make([]error, n)
	runID := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := writer.Config{
				Spec: s, Conn: connOptions(c), RunID: runID, Index: i, Writers: n,
				BarrierTimeout: 30 * time.Second, Progress: testLog{t}, ProgressEvery: time.Second,
			}
			for _, f := range tweak {
				f(&cfg)
			}
			sums[i], errs[i] = writer.Run(ctx, cfg)
		}()
	}
	wg.Wait()
	return sums, errs
}

func mustRun(t *testing.T, c *cassandra.Cluster, s *cbv1.BenchmarkRunSpec, tweak ...func(*writer.Config)) []*summary.Summary {
	t.Helper()
	sums, errs := runWriters(context.Background(), t, c, s, tweak...)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		if sums[i].Error != "" {
			t.Fatalf("writer %d reported error %q without failing", i, sums[i].Error)
		}
		b, err := sums[i].Encode()
		if err != nil || len(b) > summary.MaxBytes {
			t.Fatalf("writer %d summary: %d bytes, %v", i, len(b), err)
		}
	}
	return sums
}

func session(t *testing.T, c *cassandra.Cluster, timeout time.Duration) *gocql.Session {
	t.Helper()
	o := connOptions(c)
	o.Timeout = timeout
	s, err := cql.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Helper()
	l.t.Log(string(p[:len(p)-min(len(p), 1)]))
	return len(p), nil
}

var _ io.Writer = testLog{}
