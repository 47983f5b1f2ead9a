package workload

import (
	"encoding/json"
	"fmt"
	"strconv"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// A dataset is the rows 0..rows-1 of the global row ids, written by `loaders` writers: loader
// i of n writes its row ordinals 0..Share(rows, n, i)-1, whose global ids r*n+i cover
// [0, rows) exactly once. A later run with any number of writers reads global id g as row
// ordinal g/n of loader g%n, so its reads find rows whatever its own writer count.
type dataset struct {
	rows  uint64
	plans []keyPlan // one per loader
	hN    float64   // the zipf range for rows, when reads are zipf
}

// OnDataset returns a generator like g whose reads target the rows of a dataset of rows
// rows that loaders writers loaded with the same spec. Its writes are g's.
func (g *Generator) OnDataset(spec *cbv1.BenchmarkRunSpec, rows int64, loaders int32) (*Generator, error) {
	if rows < 1 || loaders < 1 {
		return nil, fmt.Errorf("a dataset of %d rows from %d writers has no rows to read", rows, loaders)
	}
	numbered, clustered := false, false
	for _, c := range g.cols {
		numbered = numbered || c.src == srcPartition
		clustered = clustered || c.src == srcClustering
	}
	d := &dataset{rows: uint64(rows), plans: make([]keyPlan, loaders)}
	for i := range d.plans {
		var err error
		if d.plans[i], err = newKeyPlan(spec.Workload, uint64(i), uint64(loaders), numbered, clustered); err != nil {
			return nil, fmt.Errorf("the dataset's loader %d of %d: %w", i, loaders, err)
		}
	}
	if g.readPick.z != nil {
		d.hN = g.readPick.z.top(d.rows)
	}
	out := *g
	out.data = d
	return &out, nil
}

// key is the key of the dataset row read s of writer index of writers targets, spread by
// keyDistribution over the rows: sequence walks them, each writer from its own offset; zipf
// favours the first rows loaded. With shared-out partitions the rows already follow
// keyDistribution, so reads pick rows uniformly, as reads of a writer's own rows do.
func (d *dataset) key(s, h uint64, p *picker, index, writers uint64) rowKey {
	var gid uint64
	switch {
	case d.plans[0].partitions > 0 && d.plans[0].numbered:
		gid = below(h, d.rows)
	case p.dist == cbv1.DistributionSequence:
		gid = (s*writers + index) % d.rows
	case p.dist == cbv1.DistributionZipf:
		gid = p.z.rankIn(h, d.rows, d.hN)
	case p.dist == cbv1.DistributionNormal:
		gid = normalIn(h, d.rows)
	default:
		gid = below(h, d.rows)
	}
	n := uint64(len(d.plans))
	return d.plans[gid%n].of(gid / n)
}

// LoadCells fills dst (len InsertArity) with this writer's row ordinal row, as a load stage
// writes its rows 0, 1, 2, ... whatever the operation mix, and returns its payload bytes.
func (g *Generator) LoadCells(row int64, dst []*Cell) (bytes int) {
	return g.cellsOf(g.keys.of(uint64(row)), dst)
}

// ReadRowCells fills dst (len InsertArity) with the row that read seq targets, as it was
// written, for comparing with what the read returned.
func (g *Generator) ReadRowCells(seq int64, dst []*Cell) {
	g.cellsOf(g.readKey(uint64(seq)), dst)
}

func (g *Generator) cellsOf(k rowKey, dst []*Cell) (bytes int) {
	for i, c := range g.cols {
		bytes += c.v.cell(g.number(c, k), dst[i])
	}
	return bytes
}

// Columns names the table's columns in InsertCQL's order.
func (g *Generator) Columns() []string {
	out := make([]string, len(g.cols))
	for i, c := range g.cols {
		out[i] = c.name
	}
	return out
}

// Comparable says whether column i's value can be compared by its serialized bytes:
// collections cannot, as Cassandra returns sets and maps in its own order.
func (g *Generator) Comparable(i int) bool {
	k := g.cols[i].v.kind
	return k != kList && k != kMap
}

// DatasetField is one thing a dataset's rows depend on, named as the spec names it.
type DatasetField struct {
	Name, Value string
}

// DatasetFields are what the rows of a dataset depend on besides their count and the number
// of writers that loaded them: a run measuring on a dataset must have the same, or its reads
// would look for rows that are not there (or find other values). The table's definition and
// generators are compared as given in the spec.
func DatasetFields(spec *cbv1.BenchmarkRunSpec) []DatasetField {
	w, s := spec.Workload, spec.Schema
	text := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	table := string(s.Table.Profile)
	if s.Table.CQL != "" {
		table = s.Table.CQL
	}
	csv := ""
	if s.CSV != nil {
		csv = s.CSV.ConfigMapName + "/" + s.CSV.Key
	}
	// The key distribution places rows only when writers draw partitions (partitions > 0);
	// otherwise it is how reads pick rows, which a later run may choose freely.
	keyDist, keyZipf := "", ""
	if w.Partitions > 0 {
		keyDist, keyZipf = string(w.KeyDistribution), w.KeyZipfExponent
		if keyDist == "" {
			keyDist = string(cbv1.DistributionUniform)
		}
	}
	return []DatasetField{
		{"workload.seed", strconv.FormatInt(w.Seed, 10)},
		{"schema.table", table},
		{"schema.columns", text(s.Columns)},
		{"schema.csv", csv},
		{"workload.partitions", strconv.FormatInt(w.Partitions, 10)},
		{"workload.rowsPerPartition", strconv.FormatInt(int64(max(w.RowsPerPartition, 1)), 10)},
		{"workload.keyDistribution", keyDist},
		{"workload.keyZipfExponent", keyZipf},
		{"workload.valueSize", text(w.ValueSize)},
	}
}
