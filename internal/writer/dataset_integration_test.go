package writer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/setup"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// datasetSpec is a key-value run on a dataset of rows rows in keyspace: loading it first, or
// measuring on what an earlier run loaded (recreate off, as admission requires).
func datasetSpec(keyspace string, rows int64, load bool, configure func(*builders.BenchmarkRunBuilder)) *cbv1.BenchmarkRunSpec {
	s := spec(keyspace, configure)
	s.Workload.Dataset = &cbv1.DatasetSpec{Rows: rows, Load: load}
	s.Schema.Recreate = load
	return s
}

// A run loads 100k rows in its load stage, then a read-only run with another writer count
// reads rows of that dataset by their full key: every read finds its row and every row
// holds what was written. The same read-only run with another seed is refused by setup,
// which names the difference, before any writer starts.
func TestLoadThenReadOnlyOnDataset(t *testing.T) {
	c := cluster(t)
	const ks, rows = "it_dataset_load", 100_000
	readOnly := func(b *builders.BenchmarkRunBuilder) {
		b.Mix(0, 1).Operations(4000).Concurrency(32)
	}

	load := datasetSpec(ks, rows, true, func(b *builders.BenchmarkRunBuilder) { readOnly(b); b.Writers(2).Operations(1000) })
	load.Workload.Seed = 7
	setUp(t, c, load)
	res := results.Merge(mustRun(t, c, load))
	l := res.Load
	if l == nil {
		t.Fatal("no load results")
	}
	t.Logf("load stage: %d of %d rows in %d ms (%d rows/s), %d failed; its window: %d reads, %d misses", l.Rows, l.RowsWanted, l.Millis, l.RowsPerSecond, l.Failed, res.Reads.Operations, res.Reads.Misses)
	if l.Rows != rows || l.RowsWanted != rows || l.Failed != 0 {
		t.Fatalf("load stage wrote %d of %d rows (%d failed), want all %d", l.Rows, l.RowsWanted, l.Failed, rows)
	}
	// The window's operations are reads only: the load's inserts are counted apart.
	if res.Writes != nil || res.Reads.Operations != 1000 || res.Reads.Misses != 0 {
		t.Fatalf("window after the load: writes %+v, reads %d with %d misses; want 1000 reads, no writes, no misses", res.Writes, res.Reads.Operations, res.Reads.Misses)
	}

	measure := datasetSpec(ks, rows, false, func(b *builders.BenchmarkRunBuilder) { readOnly(b); b.Writers(3) })
	measure.Workload.Seed = 7
	measure.Workload.ReadPath = cbv1.ReadRow
	measure.Workload.VerifyReads = true
	setUp(t, c, measure)
	res = results.Merge(mustRun(t, c, measure))
	r := res.Reads
	t.Logf("read-only on the dataset: %d reads, %d rows, %d misses (ratio %s), %d mismatches", r.Operations, r.Rows, r.Misses, r.MissRatio, r.Mismatches)
	if r.Operations != 4000 || r.Rows != 4000 || r.Misses != 0 || r.MissRatio != "0" || r.Mismatches != 0 {
		t.Fatalf("reads of loaded rows: %+v; want 4000 reads of a row each, miss ratio 0, no mismatches", r)
	}

	other := datasetSpec(ks, rows, false, readOnly)
	other.Workload.Seed = 8
	_, err := setup.Run(context.Background(), setup.Config{Spec: other, Conn: connOptions(c), Log: testLog{t}})
	t.Logf("refused: %v", err)
	if err == nil || !strings.Contains(err.Error(), "workload.seed 7 where this run has 8") {
		t.Fatalf("setup of a run with another seed: %v; want a refusal naming workload.seed 7 and 8", err)
	}
	fewer := datasetSpec(ks, rows/2, false, readOnly)
	fewer.Workload.Seed = 7
	if _, err := setup.Run(context.Background(), setup.Config{Spec: fewer, Conn: connOptions(c), Log: testLog{t}}); err == nil || !strings.Contains(err.Error(), "100000 rows where workload.dataset.rows is 50000") {
		t.Fatalf("setup of a run expecting fewer rows: %v; want a refusal naming both counts", err)
	}
}

// Reads verified against what was written count no mismatch on the rows as loaded, and count
// the reads of rows changed behind the run's back.
func TestVerifyReadsCountsAlteredRows(t *testing.T) {
	c := cluster(t)
	const ks, rows = "it_dataset_verify", 400
	s := datasetSpec(ks, rows, true, func(b *builders.BenchmarkRunBuilder) { b.Mix(0, 1).Operations(2000).Writers(2) })
	s.Workload.ReadPath = cbv1.ReadRow
	s.Workload.VerifyReads = true
	setUp(t, c, s)
	r := results.Merge(mustRun(t, c, s)).Reads
	if r.Misses != 0 || r.Mismatches != 0 || r.Operations != 2000 {
		t.Fatalf("verified reads of rows as loaded: %+v; want 2000 reads, no misses, no mismatches", r)
	}

	// Change the value of every other row; about half the reads land on one.
	db := session(t, c, time.Minute)
	iter := db.Query(fmt.Sprintf("select key from %s.key_value", ks)).Iter()
	var keys []int64
	var key int64
	for iter.Scan(&key) {
		keys = append(keys, key)
	}
	if err := iter.Close(); err != nil || len(keys) != rows {
		t.Fatalf("read %d keys (%v), want %d", len(keys), err, rows)
	}
	for i := 0; i < len(keys); i += 2 {
		if err := db.Query(fmt.Sprintf("update %s.key_value set value = 0xdeadbeef where key = ?", ks), keys[i]).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	again := datasetSpec(ks, rows, false, func(b *builders.BenchmarkRunBuilder) { b.Mix(0, 1).Operations(2000).Writers(2) })
	again.Workload.ReadPath = cbv1.ReadRow
	again.Workload.VerifyReads = true
	setUp(t, c, again)
	r = results.Merge(mustRun(t, c, again)).Reads
	t.Logf("after altering %d of %d rows: %d reads, %d misses, %d mismatches", rows/2, rows, r.Operations, r.Misses, r.Mismatches)
	if r.Misses != 0 || r.Mismatches < 800 || r.Mismatches > 1200 {
		t.Fatalf("verified reads after altering half the rows: %+v; want about 1000 mismatches and no misses", r)
	}
}
