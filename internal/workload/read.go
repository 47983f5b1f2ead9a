package workload

import (
	"fmt"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// readCol fills one bind marker of the read: the column's value, or for an index on a
// collection the element the row can be found by.
type readCol struct {
	col      *colGen
	contains bool
}

// readCQL is the SELECT of a read path, with limit rows at most if limit > 0, and which column
// fills each bind marker; "" when the table has nothing to read it by. Where a limit applies
// is the CRD's rule (admission).
func readCQL(r *resolved, cols []*colGen, path cbv1.ReadPath, limit int32) (string, []readCol, error) {
	q, read, err := readSelect(r, cols, path)
	if q != "" && limit > 0 {
		q += " limit " + strconv.Itoa(int(limit))
	}
	return q, read, err
}

// readSelect is readCQL without a limit.
func readSelect(r *resolved, cols []*colGen, path cbv1.ReadPath) (string, []readCol, error) {
	t := r.table
	var key []int
	switch path {
	case cbv1.ReadPartition:
		key = t.PartitionKey
	case cbv1.ReadRow:
		key = append(append(key, t.PartitionKey...), t.ClusteringKey...)
	case cbv1.ReadIndex:
		if len(r.indexes) == 0 {
			return "", nil, nil
		}
		ix := r.indexes[0]
		op := " = ?"
		if ix.contains {
			op = " contains ?"
		}
		q := "select * from " + r.qualified() + " where " + ddl.QuoteIdent(t.Columns[ix.column].Name) + op
		return q, []readCol{{col: cols[ix.column], contains: ix.contains}}, nil
	default:
		return "", nil, fmt.Errorf("workload.readPath %q is not partition, row or index", path)
	}
	conds := make([]string, len(key))
	read := make([]readCol, len(key))
	for i, c := range key {
		conds[i] = ddl.QuoteIdent(t.Columns[c].Name) + " = ?"
		read[i] = readCol{col: cols[c]}
	}
	return "select * from " + r.qualified() + " where " + strings.Join(conds, " and "), read, nil
}

// ReadCQL is the prepared SELECT of the workload's read path, "" when there is none (read
// path index without an index; NewGenerator refuses that when the workload reads).
func (g *Generator) ReadCQL() string { return g.readCQL }

// ReadArity is the number of bind markers of ReadCQL.
func (g *Generator) ReadArity() int { return len(g.read) }

// ReadArgs fills dst (len ReadArity) with the bind values of read operation seq and returns
// how many it set. It reads a row that write operations before seq wrote: spread by
// keyDistribution over them when every write makes a new partition (sequence walks them in
// order, zipf favours the newest), uniformly otherwise. A read before any write reads the
// first row this writer will write; a read-only workload reads the rows a write run of the
// same spec would have written by then.
func (g *Generator) ReadArgs(seq int64, dst []any) int {
	k := g.readKey(uint64(seq))
	for i, rc := range g.read {
		x := g.number(rc.col, k)
		if rc.contains {
			dst[i] = rc.col.v.first(x)
		} else {
			dst[i], _ = rc.col.v.value(x)
		}
	}
	return len(g.read)
}

// readKey is the key of the row read seq targets: a row of the dataset when the reads are
// on one, else a row this writer wrote before.
func (g *Generator) readKey(s uint64) rowKey {
	if g.data != nil {
		return g.data.key(s, mix(s^g.readSalt), &g.readPick, g.keys.index, g.keys.writers)
	}
	return g.keys.of(g.readTarget(s))
}

func (g *Generator) readTarget(s uint64) uint64 {
	written := g.writesBefore(s)
	span := written * g.batch
	if g.writeW == 0 {
		span = (s + 1) * g.batch
	}
	if span == 0 {
		return 0
	}
	h := mix(s ^ g.readSalt)
	if g.keys.partitions > 0 {
		return below(h, span)
	}
	switch g.readPick.dist {
	case cbv1.DistributionSequence:
		return (s - written) % span
	case cbv1.DistributionZipf:
		return span - 1 - g.readPick.z.rank(h, span)
	}
	return g.readPick.pickIn(span, s, h)
}
