package writer_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/workload"
)

// Each kind of workload.operations runs against the local cluster, and what it did is then
// checked by a query of its own, independent of what the writers report.

// opsSpec is a spec whose mix is only the given operations (writeRatio 0) on a keyspace
// that an earlier run loaded: it is not recreated.
func opsSpec(keyspace string, configure func(*builders.BenchmarkRunBuilder), ops ...cbv1.Operation) *cbv1.BenchmarkRunSpec {
	s := spec(keyspace, configure)
	// A workload of zero ratios alone is left out and defaulted to writeRatio 1.
	s.Workload.WriteRatio, s.Workload.ReadRatio = 0, 0
	s.Schema.Recreate = false
	for i := range ops {
		if ops[i].Weight == 0 {
			ops[i].Weight = 1
		}
	}
	s.Workload.Operations = ops
	return s
}

// kindResults merges the writers' summaries and returns the figures of one kind, failing the
// test if any operation of it failed: the checks below count on every operation having
// happened exactly once.
func kindResults(t *testing.T, sums []*summary.Summary, kind cbv1.OperationKind) cbv1.KindResults {
	t.Helper()
	r := results.Merge(sums)
	for _, k := range r.OperationsByKind {
		if k.Kind == kind {
			if k.Failed != 0 {
				t.Fatalf("%d %s operations failed", k.Failed, kind)
			}
			t.Logf("%s: %d operations, %d ops/s, p50 %d us, p99 %d us", kind, k.Operations, k.OpsPerSecond, k.Response.P50, k.Response.P99)
			return k
		}
	}
	t.Fatalf("no %s in status.results.operationsByKind: %+v", kind, r.OperationsByKind)
	return cbv1.KindResults{}
}

func generator(t *testing.T, s *cbv1.BenchmarkRunSpec, index, writers int32) *workload.Generator {
	t.Helper()
	g, err := workload.NewGenerator(s, index, writers)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// keyValues reads the whole key_value table of a keyspace.
func keyValues(t *testing.T, db *gocql.Session, keyspace string) map[int64][]byte {
	t.Helper()
	out := map[int64][]byte{}
	iter := db.Query(fmt.Sprintf("SELECT key, value FROM %q.key_value", keyspace)).Consistency(gocql.All).Iter()
	var k int64
	var v []byte
	for iter.Scan(&k, &v) {
		out[k] = append([]byte(nil), v...)
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("reading %s.key_value: %v", keyspace, err)
	}
	return out
}

// load inserts n rows with one writer.
func load(t *testing.T, keyspace string, n int64, configure func(*builders.BenchmarkRunBuilder), edits ...func(*cbv1.BenchmarkRunSpec)) *cbv1.BenchmarkRunSpec {
	t.Helper()
	c := cluster(t)
	s := spec(keyspace, func(b *builders.BenchmarkRunBuilder) {
		b.Operations(n).Concurrency(8)
		if configure != nil {
			configure(b)
		}
	})
	for _, e := range edits {
		e(s)
	}
	setUp(t, c, s)
	mustRun(t, c, s)
	return s
}

// Updates give the columns they name new values: after them, every updated row holds the
// value of the last update to it, which differs from the one inserted, and rows no update
// reached hold what was inserted.
func TestUpdateChangesColumns(t *testing.T) {
	c := cluster(t)
	const ks, rows, updates = "it_ops_update", 400, 200
	loaded := load(t, ks, rows, nil)
	// One request in flight: updates of the same key land in operation order.
	s := opsSpec(ks, func(b *builders.BenchmarkRunBuilder) { b.Operations(updates).Concurrency(1) },
		cbv1.Operation{Kind: cbv1.OperationUpdate, Columns: []string{"value"}})
	sums := mustRun(t, c, s)
	if k := kindResults(t, sums, cbv1.OperationUpdate); k.Operations != updates {
		t.Fatalf("%d updates succeeded, want %d", k.Operations, updates)
	}

	inserted := map[int64][]byte{}
	ins := generator(t, loaded, 0, 1)
	row := make([]any, ins.InsertArity())
	for r := range int64(rows) {
		ins.RowAt(r, row)
		inserted[row[0].(int64)] = row[1].([]byte)
	}
	g := generator(t, s, 0, 1)
	want := map[int64][]byte{}
	args := make([]any, g.Arity(workload.OpUpdate))
	for seq := range int64(updates) {
		g.Args(workload.OpUpdate, seq, args)
		want[args[1].(int64)] = args[0].([]byte)
	}
	got := keyValues(t, session(t, c, time.Minute), ks)
	if len(got) != rows {
		t.Fatalf("table holds %d rows, want the %d loaded", len(got), rows)
	}
	for key, v := range got {
		w, updated := want[key]
		switch {
		case updated && !bytes.Equal(v, w):
			t.Errorf("key %d: value is not its last update's", key)
		case updated && bytes.Equal(v, inserted[key]):
			t.Errorf("key %d: the update left the inserted value", key)
		case !updated && !bytes.Equal(v, inserted[key]):
			t.Errorf("key %d: no update targeted it, yet its value changed", key)
		}
	}
	t.Logf("%d updates changed %d of %d rows", updates, len(want), rows)
}

// Deletes remove the rows they target and no other.
func TestDeleteRemovesRows(t *testing.T) {
	c := cluster(t)
	const ks, rows, deletes = "it_ops_delete", 400, 150
	load(t, ks, rows, nil)
	s := opsSpec(ks, func(b *builders.BenchmarkRunBuilder) { b.Operations(deletes).Concurrency(8) },
		cbv1.Operation{Kind: cbv1.OperationDelete})
	sums := mustRun(t, c, s)
	if k := kindResults(t, sums, cbv1.OperationDelete); k.Operations != deletes {
		t.Fatalf("%d deletes succeeded, want %d", k.Operations, deletes)
	}
	g := generator(t, s, 0, 1)
	deleted := map[int64]bool{}
	args := make([]any, g.Arity(workload.OpDelete))
	for seq := range int64(deletes) {
		g.Args(workload.OpDelete, seq, args)
		deleted[args[0].(int64)] = true
	}
	got := keyValues(t, session(t, c, time.Minute), ks)
	for key := range deleted {
		if _, ok := got[key]; ok {
			t.Errorf("key %d was deleted but is still there", key)
		}
	}
	if len(got)+len(deleted) != rows {
		t.Errorf("%d rows left and %d deleted, of %d loaded: a delete removed a row it did not target", len(got), len(deleted), rows)
	}
	t.Logf("%d deletes removed %d distinct rows; %d left", deletes, len(deleted), len(got))
}

// Lightweight transactions on keys that repeat apply once per key: the applied ones are as
// many as the distinct keys and the rows in the table. Run again at LOCAL_SERIAL over the
// same keys, none applies.
func TestInsertIfNotExistsAppliesOncePerKey(t *testing.T) {
	c := cluster(t)
	const ks, ops, writers = "it_ops_lwt", 300, 2
	s := spec(ks, func(b *builders.BenchmarkRunBuilder) { b.Writers(writers).Operations(ops).Concurrency(4) })
	s.Workload.Partitions = 60
	s.Workload.WriteRatio, s.Workload.ReadRatio = 0, 0
	s.Workload.Operations = []cbv1.Operation{{Kind: cbv1.OperationInsertIfNotExists, Weight: 1, SerialConsistency: "SERIAL"}}
	setUp(t, c, s)
	k := kindResults(t, mustRun(t, c, s), cbv1.OperationInsertIfNotExists)
	var distinct int64
	for i := range int32(writers) {
		distinct += generator(t, s, i, writers).Rows(ops / writers)
	}
	got := keyValues(t, session(t, c, time.Minute), ks)
	if k.Applied != distinct || int64(len(got)) != distinct || k.Applied+k.NotApplied != ops {
		t.Fatalf("%d applied and %d not of %d; %d distinct keys and %d rows in the table: want applied = keys = rows",
			k.Applied, k.NotApplied, ops, distinct, len(got))
	}
	t.Logf("%d lightweight transactions over %d keys: %d applied, %d not", ops, distinct, k.Applied, k.NotApplied)

	again := *s
	again.Schema.Recreate = false
	again.Workload.Operations = []cbv1.Operation{{Kind: cbv1.OperationInsertIfNotExists, Weight: 1, SerialConsistency: "LOCAL_SERIAL"}}
	k = kindResults(t, mustRun(t, c, &again), cbv1.OperationInsertIfNotExists)
	if k.Applied != 0 || k.NotApplied != ops {
		t.Errorf("over existing keys at LOCAL_SERIAL: %d applied, %d not; want 0 and %d", k.Applied, k.NotApplied, ops)
	}
}

// Counter increments add up to the number of increments, over the counters profile.
func TestCounterIncrementsSum(t *testing.T) {
	c := cluster(t)
	const ks, ops, writers = "it_ops_counter", 600, 2
	s := spec(ks, func(b *builders.BenchmarkRunBuilder) {
		b.Profile(cbv1.ProfileCounters).Writers(writers).Operations(ops).Concurrency(8)
	})
	s.Workload.Partitions = 20
	s.Workload.WriteRatio, s.Workload.ReadRatio = 0, 0
	s.Workload.Operations = []cbv1.Operation{{Kind: cbv1.OperationCounterIncrement, Weight: 1}}
	setUp(t, c, s)
	k := kindResults(t, mustRun(t, c, s), cbv1.OperationCounterIncrement)
	if k.Operations != ops {
		t.Fatalf("%d increments succeeded, want %d", k.Operations, ops)
	}
	iter := session(t, c, time.Minute).Query(fmt.Sprintf("SELECT ips FROM %q.ip_counts", ks)).Consistency(gocql.All).Iter()
	var n, sum, rows int64
	for iter.Scan(&n) {
		sum += n
		rows++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if sum != ops {
		t.Errorf("counters sum to %d, want the %d increments", sum, ops)
	}
	if rows > 20 || rows < 15 {
		t.Errorf("%d counter rows; the increments went to 20 partitions", rows)
	}
	t.Logf("%d increments over %d counter rows sum to %d", ops, rows, sum)
}

// A partition scan reads every row of its partition, page by page: what the scans report is
// what counting each scanned partition finds.
func TestScanPartitionReadsEveryRow(t *testing.T) {
	c := cluster(t)
	const ks, perPartition, partitions, scans, pageSize = "it_ops_scan", 37, 8, 120, 10
	table := "CREATE TABLE wide (p bigint, c bigint, v text, PRIMARY KEY (p, c))"
	load(t, ks, perPartition*partitions, func(b *builders.BenchmarkRunBuilder) { b.CQL(table) },
		func(s *cbv1.BenchmarkRunSpec) { s.Workload.RowsPerPartition = perPartition })
	s := opsSpec(ks, func(b *builders.BenchmarkRunBuilder) { b.CQL(table).Operations(scans).Concurrency(4) },
		cbv1.Operation{Kind: cbv1.OperationScanPartition, PageSize: pageSize})
	s.Workload.RowsPerPartition = perPartition
	sums := mustRun(t, c, s)
	k := kindResults(t, sums, cbv1.OperationScanPartition)

	g := generator(t, s, 0, 1)
	db := session(t, c, time.Minute)
	counts := map[int64]int64{}
	var wantRows, wantPages int64
	args := make([]any, g.Arity(workload.OpScanPartition))
	for seq := range int64(scans) {
		g.Args(workload.OpScanPartition, seq, args)
		p := args[0].(int64)
		n, seen := counts[p]
		if !seen {
			if err := db.Query(fmt.Sprintf("SELECT COUNT(*) FROM %q.wide WHERE p = ?", ks), p).Consistency(gocql.All).Scan(&n); err != nil {
				t.Fatal(err)
			}
			counts[p] = n
		}
		wantRows += n
		wantPages += (n + pageSize - 1) / pageSize
	}
	if k.Operations != scans || k.Rows != wantRows || k.Pages != wantPages || k.Misses != 0 {
		t.Errorf("%d scans read %d rows in %d pages (%d empty); counting the partitions they scanned gives %d scans, %d rows, %d pages",
			k.Operations, k.Rows, k.Pages, k.Misses, scans, wantRows, wantPages)
	}
	for p, n := range counts {
		if n != perPartition {
			t.Errorf("partition %d holds %d rows, want %d", p, n, perPartition)
		}
	}
	t.Logf("%d scans over %d partitions: %d rows in %d pages", scans, len(counts), k.Rows, k.Pages)
}

// The token-range scans of two writers, one per split, read the whole table once.
func TestScanTokenRangeReadsTheTable(t *testing.T) {
	c := cluster(t)
	const ks, rows, splits = "it_ops_ranges", 500, 16
	load(t, ks, rows, nil)
	s := opsSpec(ks, func(b *builders.BenchmarkRunBuilder) { b.Writers(2).Operations(splits).Concurrency(4) },
		cbv1.Operation{Kind: cbv1.OperationScanTokenRange, PageSize: 20, Splits: splits})
	k := kindResults(t, mustRun(t, c, s), cbv1.OperationScanTokenRange)
	got := keyValues(t, session(t, c, time.Minute), ks)
	if k.Operations != splits || k.Rows != int64(len(got)) || len(got) != rows {
		t.Errorf("%d range scans read %d rows; the table holds %d, %d were loaded", k.Operations, k.Rows, len(got), rows)
	}
	if k.Pages < rows/20 {
		t.Errorf("%d rows came in %d pages of at most 20", k.Rows, k.Pages)
	}
	t.Logf("%d range scans: %d rows in %d pages", splits, k.Rows, k.Pages)
}

// A mix of every kind a plain table takes runs in one window: each kind gets its weight's
// share of the operations, writes and reads keep their own blocks, the totals count every
// kind, and the summaries fit their termination messages (mustRun checks).
func TestMixedOperationsShareTheWindow(t *testing.T) {
	c := cluster(t)
	const ks, ops, writers = "it_ops_mix", 1200, 2
	s := spec(ks, func(b *builders.BenchmarkRunBuilder) { b.Writers(writers).Operations(ops).Concurrency(8).Mix(3, 2) })
	s.Workload.Operations = []cbv1.Operation{
		{Kind: cbv1.OperationUpdate, Weight: 2}, {Kind: cbv1.OperationDelete, Weight: 1},
		{Kind: cbv1.OperationInsertIfNotExists, Weight: 1, SerialConsistency: "LOCAL_SERIAL"},
		{Kind: cbv1.OperationScanPartition, Weight: 2, PageSize: 100}, {Kind: cbv1.OperationScanTokenRange, Weight: 1, Splits: 64},
	}
	setUp(t, c, s)
	r := results.Merge(mustRun(t, c, s))
	// 12 operations a cycle; each writer runs 600, 50 cycles.
	want := map[string]int64{"writes": 150 * writers, "reads": 100 * writers, "update": 100 * writers, "delete": 50 * writers,
		"insertIfNotExists": 50 * writers, "scanPartition": 100 * writers, "scanTokenRange": 50 * writers}
	got := map[string]int64{"writes": r.Writes.Operations + r.Writes.Failed, "reads": r.Reads.Operations + r.Reads.Failed}
	total := got["writes"] + got["reads"]
	for _, k := range r.OperationsByKind {
		got[string(k.Kind)] = k.Operations + k.Failed
		total += k.Operations + k.Failed
		if k.Response.P50 == 0 || k.Response.RelativeAccuracy == "" {
			t.Errorf("%s has no response latency: %+v", k.Kind, k.Response)
		}
	}
	for kind, n := range want {
		if got[kind] != n {
			t.Errorf("%s: %d operations, want %d", kind, got[kind], n)
		}
	}
	if total != ops || r.Operations+r.Errors.WriteTimeout+r.Errors.ReadTimeout+r.Errors.ClientTimeout+r.Errors.Unavailable+r.Errors.Overloaded+r.Errors.Other != ops {
		t.Errorf("%d operations by kind, %d in the totals (errors %+v); want %d", total, r.Operations, r.Errors, ops)
	}
	t.Logf("%d operations at %d ops/s: %v", r.Operations, r.OpsPerSecond, got)
}
