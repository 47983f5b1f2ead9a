package writer_test

import (
	"testing"

	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A read of a partition larger than one page (the driver fetches 5000 rows at a time) reads
// every page, each fetched under a fresh request deadline, and counts the bytes of every row;
// with workload.readLimit it reads that many rows.
func TestReadSpansPages(t *testing.T) {
	c := cluster(t)
	const rows, valueBytes = 12000, 10
	wide := func(b *builders.BenchmarkRunBuilder) {
		b.CQL("CREATE TABLE wide (p int, c bigint, v blob, PRIMARY KEY (p, c))").Concurrency(16)
		b.Obj().Spec.Schema.Columns = []cbv1.ColumnGenerator{
			{Name: "p", Cardinality: 1},
			{Name: "v", MinSize: ptr.To[int32](valueBytes), MaxSize: ptr.To[int32](valueBytes)},
		}
	}
	s := spec("it_paging", func(b *builders.BenchmarkRunBuilder) { wide(b); b.Operations(rows) })
	setUp(t, c, s)
	if w := mustRun(t, c, s)[0].Writes; w == nil || w.OK != rows {
		t.Fatalf("writing the partition: %+v", w)
	}

	// Every row carries p (4 bytes), c (8) and v. A limit of 7000 rows takes two pages too.
	for _, limit := range []int32{0, 7000} {
		r := spec("it_paging", func(b *builders.BenchmarkRunBuilder) { wide(b); b.Operations(3).Mix(0, 1).Concurrency(1) })
		r.Schema.Recreate = false
		r.Workload.ReadPath, r.Workload.ReadLimit = cbv1.ReadPartition, limit
		setUp(t, c, r)
		reads := mustRun(t, c, r)[0].Reads
		checkOps(t, "reads", reads)
		want := int64(rows)
		if limit > 0 {
			want = int64(limit)
		}
		if wantBytes := 3 * want * (4 + 8 + valueBytes); reads.OK != 3 || reads.Bytes != wantBytes {
			t.Errorf("3 reads of a %d-row partition, limit %d: %d reads, %d bytes; want 3 reads, %d bytes",
				rows, limit, reads.OK, reads.Bytes, wantBytes)
		}
	}
}
