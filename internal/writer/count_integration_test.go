package writer_test

import (
	"fmt"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/workload"
)

// What writers report as inserted is what is in the table, counted independently afterwards.
// With partitions = 0 every write is a new key, so rows and successful inserts must agree.
func TestInsertsMatchRowCount(t *testing.T) {
	c := cluster(t)
	tests := map[string]struct {
		writers   int32
		ops       int64
		batchSize int32
		io        cbv1.DriverIO
	}{
		"two writers, single inserts": {writers: 2, ops: 20000, batchSize: 1},
		"one writer, batches of 10":   {writers: 1, ops: 1000, batchSize: 10},
		// The driver as it ships, with neither batched sends nor routing of our own.
		"stock driver I/O": {writers: 2, ops: 20000, batchSize: 1, io: cbv1.DriverIOStock},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := spec("it_count", func(b *builders.BenchmarkRunBuilder) {
				b.Writers(tc.writers).Operations(tc.ops).Concurrency(32)
			})
			s.Workload.BatchSize = tc.batchSize
			s.Writers.DriverIO = tc.io
			setUp(t, c, s)
			var inserted int64
			for _, sum := range mustRun(t, c, s) {
				inserted += sum.Writes.OK * int64(tc.batchSize)
				if sum.Writes.Failed() != 0 {
					t.Errorf("writer %d: %d writes failed", sum.Index, sum.Writes.Failed())
				}
				checkPaths(t, sum, tc.batchSize == 1 && tc.io != cbv1.DriverIOStock)
			}
			if want := tc.ops * int64(tc.batchSize); inserted != want {
				t.Errorf("writers report %d rows inserted, want %d (operations bound)", inserted, want)
			}
			schema, err := workload.BuildSchema(s, "")
			if err != nil {
				t.Fatal(err)
			}
			var rows int64
			q := session(t, c, 2*time.Minute).Query(fmt.Sprintf("SELECT COUNT(*) FROM %q.%q", schema.Keyspace, schema.Table)).Consistency(gocql.All)
			if err := q.Scan(&rows); err != nil {
				t.Fatalf("counting rows: %v", err)
			}
			if rows != inserted {
				t.Errorf("table holds %d rows; writers reported %d successful inserts", rows, inserted)
			}
		})
	}
}

// checkPaths checks that the path the writer says carried its writes is the one its spec
// chose: with direct, every insert travelled on the direct path and none fell back to the
// driver; otherwise the driver carried them all.
func checkPaths(t *testing.T, sum *summary.Summary, direct bool) {
	t.Helper()
	p := sum.Paths
	switch {
	case p == nil:
		t.Errorf("writer %d reports no write paths", sum.Index)
	case direct && (p.Direct < sum.Writes.OK || p.Driver != 0 || p.FellBack() != 0):
		t.Errorf("writer %d: %d writes, paths %+v; want every one carried by the direct path", sum.Index, sum.Writes.OK, *p)
	case !direct && (p.Direct != 0 || p.Driver < sum.Writes.OK):
		t.Errorf("writer %d: %d writes, paths %+v; want every one carried by the driver", sum.Index, sum.Writes.OK, *p)
	}
}
