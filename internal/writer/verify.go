package writer

import (
	"bytes"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/workload"
)

// verifier compares the row a read returns with the row the generator wrote there, column by
// column in serialized form: the driver serializes the expected value as it did on the
// insert, so a value altered, lost or written by someone else differs. Collections are left
// out, as Cassandra returns sets and maps in its own order. Each load goroutine has its own.
type verifier struct {
	gen        *workload.Generator
	byName     map[string]int
	comparable []bool
	expect     []cell
	cells      []*workload.Cell
	sinks      []any
	raws       []rawValue
	mismatches int64
}

func newVerifier(gen *workload.Generator) *verifier {
	v := &verifier{gen: gen, byName: map[string]int{}}
	names := gen.Columns()
	v.expect, v.cells = make([]cell, len(names)), make([]*workload.Cell, len(names))
	for i, n := range names {
		v.byName[n] = i
		v.comparable = append(v.comparable, gen.Comparable(i))
		v.cells[i] = &v.expect[i].Cell
	}
	return v
}

func (v *verifier) reset() { v.mismatches = 0 }

// read scans a read's rows as cqlOp.exec does, keeping the last row's values, and counts a
// mismatch when a row came back that differs from the expected one.
func (v *verifier) read(c *cqlOp, iter *gocql.Iter) (int, int, error) {
	cols := iter.Columns()
	if len(cols) != len(v.sinks) {
		v.raws, v.sinks = make([]rawValue, len(cols)), make([]any, len(cols))
		for i := range v.raws {
			v.raws[i].total = &c.readBytes
			v.sinks[i] = &v.raws[i]
		}
	}
	c.readBytes = 0
	rows := 0
	for c.deadline.Arm(); iter.Scan(v.sinks...); c.deadline.Arm() {
		rows++
	}
	if err := iter.Close(); err != nil {
		return c.readBytes, rows, err
	}
	if rows > 0 && !v.matches(c.readSeq, cols) {
		v.mismatches++
	}
	return c.readBytes, rows, nil
}

// matches compares the scanned row with the row read seq targets.
func (v *verifier) matches(seq int64, cols []gocql.ColumnInfo) bool {
	v.gen.ReadRowCells(seq, v.cells)
	for i, col := range cols {
		j, ok := v.byName[col.Name]
		if !ok || !v.comparable[j] {
			continue
		}
		want, err := v.expect[j].MarshalCQL(col.TypeInfo)
		if err != nil || !bytes.Equal(want, v.raws[i].data) {
			return false
		}
	}
	return true
}

// rawValue keeps a column's serialized value, and counts its bytes like byteCounter.
type rawValue struct {
	total *int
	data  []byte
}

func (r *rawValue) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*r.total += len(data)
	r.data = append(r.data[:0], data...)
	return nil
}
