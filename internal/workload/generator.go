package workload

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// Generator produces the operations of one writer. It has no mutable state: every method is
// a pure function of its arguments, so generators may be shared or duplicated freely.
type Generator struct {
	cols      []*colGen
	insertCQL string
	// rowCQL selects a row by its primary key; rowKey are the insert columns that bind it.
	rowCQL  string
	rowKey  []int
	readCQL string
	read    []readCol
	keys    keyPlan
	// writeW and readW weigh the operation mix; total is their sum.
	writeW, readW, total uint64
	batch                uint64
	// readPick spreads reads over the rows written so far when every write makes a new
	// partition; with shared-out partitions the rows already follow keyDistribution.
	readPick   picker
	readSalt   uint64
	uniqueRows bool
	// mix interleaves workload.operations with inserts and reads; nil without them, when
	// writeW and readW alone decide.
	mix        *opMix
	ops        [NumOpKinds]*kindOp
	ttl        int32
	updateSalt uint64
	// data, when set, is the dataset reads target instead of this writer's own rows.
	data *dataset
}

// NewGenerator builds the generator of writer index of writers. The same spec, index and
// writers give the same operations.
func NewGenerator(spec *cbv1.BenchmarkRunSpec, index, writers int32) (*Generator, error) {
	return NewGeneratorWith(spec, index, writers, Options{})
}

// Options are what a generator needs beyond the spec.
type Options struct {
	// CSV is the file of schema.csv, for columns that name a csvColumn.
	CSV *CSV
}

// NewGeneratorWith is NewGenerator with options.
func NewGeneratorWith(spec *cbv1.BenchmarkRunSpec, index, writers int32, opts Options) (*Generator, error) {
	if writers < 1 || index < 0 || index >= writers {
		return nil, fmt.Errorf("writer index %d is not in [0, %d)", index, writers)
	}
	r, err := resolve(spec)
	if err != nil {
		return nil, err
	}
	cols, err := buildColumns(r, spec, opts.CSV)
	if err != nil {
		return nil, err
	}
	w := spec.Workload
	if w.BatchSize < 1 {
		return nil, fmt.Errorf("workload.batchSize %d is below 1, which the CRD defaults and refuses: the spec was not admitted", w.BatchSize)
	}
	if w.WriteRatio < 0 || w.ReadRatio < 0 {
		return nil, fmt.Errorf("workload.writeRatio %d and readRatio %d must not be negative", w.WriteRatio, w.ReadRatio)
	}
	g := &Generator{
		cols: cols, writeW: uint64(w.WriteRatio), readW: uint64(w.ReadRatio),
		batch: uint64(w.BatchSize), readSalt: mix(uint64(w.Seed) ^ 0x72656164),
	}
	if g.writeW+g.readW == 0 && len(w.Operations) == 0 {
		return nil, fmt.Errorf("workload.writeRatio and readRatio are both 0, which the CRD refuses: the spec was not admitted")
	}
	g.total = g.writeW + g.readW
	numbered, clustered := false, false
	for _, c := range cols {
		numbered = numbered || c.src == srcPartition
		clustered = clustered || c.src == srcClustering
	}
	if g.keys, err = newKeyPlan(w, uint64(index), uint64(writers), numbered, clustered); err != nil {
		return nil, err
	}
	if g.readPick, err = newPicker(w.KeyDistribution, 1, w.KeyZipfExponent); err != nil {
		return nil, fmt.Errorf("workload.keyDistribution: %w", err)
	}
	g.ttl, g.updateSalt = w.TTLSeconds, mix(uint64(w.Seed)^0x757064617465)
	if len(w.Operations) > 0 {
		if err := g.withOperations(r, w); err != nil {
			return nil, err
		}
	} else if len(r.table.Counters()) > 0 {
		return nil, fmt.Errorf("table %s has counter columns, which take no INSERT: set workload.writeRatio to 0 and weigh counterIncrement in workload.operations", r.table.Name)
	}
	g.uniqueRows = g.rowsAreUnique()
	g.insertCQL = insertCQL(r, w.TTLSeconds)
	g.rowCQL, g.rowKey = rowKeyCQL(r)
	if g.readCQL, g.read, err = readCQL(r, cols, w.ReadPath, w.ReadLimit); err != nil {
		return nil, err
	}
	if w.ReadRatio > 0 && g.readCQL == "" {
		return nil, fmt.Errorf("workload.readPath is index but schema.indexes is empty: add an index or read by partition or row")
	}
	return g, nil
}

// Statements are written in lower case: the driver looks at the first word of every statement
// it executes (to decide whether to prepare it), and lower-casing a word that is lower case
// already costs no allocation.

func insertCQL(r *resolved, ttl int32) string {
	cols := make([]string, len(r.table.Columns))
	for i, c := range r.table.Columns {
		cols[i] = ddl.QuoteIdent(c.Name)
	}
	markers := strings.Repeat(", ?", len(cols))[2:]
	q := "insert into " + r.qualified() + " (" + strings.Join(cols, ", ") + ") values (" + markers + ")"
	if ttl > 0 {
		q += " using ttl " + strconv.Itoa(int(ttl))
	}
	return q
}

// InsertCQL is the prepared insert of every column, with a literal "using ttl" when
// workload.ttlSeconds is set.
func (g *Generator) InsertCQL() string { return g.insertCQL }

// InsertArity is the number of bind markers of InsertCQL: one per column, in table order.
func (g *Generator) InsertArity() int { return len(g.cols) }

// Rows returns how many distinct primary keys this writer writes in its first n rows (row
// ordinals 0..n-1). It is exact; unless every row is known to be new, it enumerates them.
func (g *Generator) Rows(n int64) int64 {
	if g.uniqueRows {
		return n
	}
	seen := map[string]struct{}{}
	var buf []byte
	for r := range uint64(max(n, 0)) {
		k := g.keys.of(r)
		buf = buf[:0]
		for _, c := range g.cols {
			if c.isKey {
				buf = binary.AppendUvarint(buf, g.number(c, k))
			}
		}
		seen[string(buf)] = struct{}{}
	}
	return int64(len(seen))
}

// rowsAreUnique holds when an unbounded identity column spells a number that differs on
// every row: the clustering number always does, the partition number when every write makes a
// new partition.
func (g *Generator) rowsAreUnique() bool {
	for _, c := range g.cols {
		if c.cap != 0 || c.div == 0 {
			continue
		}
		if c.src == srcClustering || (c.src == srcPartition && g.keys.partitions == 0 && g.keys.perPartition == 1) {
			return true
		}
	}
	return false
}
