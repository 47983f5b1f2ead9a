package workload

import (
	"fmt"
	"math/bits"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// source is the number a column renders.
type source uint8

const (
	srcPartition  source = iota // a digit of the partition number
	srcClustering               // a digit of the clustering number
	srcAnchor                   // drawn once per partition (or per row if the partition has no number)
	srcRow                      // drawn or numbered per row
)

// colGen is one column of the table with where its values come from.
type colGen struct {
	name string
	v    *valueGen
	src  source
	// isKey marks primary-key columns, whose values together identify the row.
	isKey bool
	// div and cap place the column's digit in a mixed-radix number: (n/div) % cap, no modulo
	// when cap is 0. div 0 means the number never reaches this column.
	div, cap uint64
	// counter marks a counter column, which has no values to generate: only counterIncrement
	// touches it, with a literal + 1.
	counter bool
}

func (c *colGen) digit(n uint64) uint64 {
	if c.div == 0 {
		return 0
	}
	q := n / c.div
	if c.cap != 0 {
		q %= c.cap
	}
	return q
}

// buildColumns builds a generator per column: profile presets, then spec.schema.columns, then
// workload.valueSize, over the defaults of each column's type and place in the key.
func buildColumns(r *resolved, spec *cbv1.BenchmarkRunSpec, file *CSV) ([]*colGen, error) {
	t := r.table
	given := map[int]cbv1.ColumnGenerator{}
	for _, g := range spec.Schema.Columns {
		i := t.Column(g.Name)
		if i < 0 {
			return nil, fmt.Errorf("schema.columns names column %q, which table %s does not have", g.Name, t.Name)
		}
		if _, dup := given[i]; dup {
			return nil, fmt.Errorf("schema.columns names column %q twice", g.Name)
		}
		given[i] = g
	}
	cols := make([]*colGen, len(t.Columns))
	var partIDs, clustIDs []*colGen
	for i, c := range t.Columns {
		if c.Type.Name == "counter" {
			cols[i] = &colGen{name: c.Name, counter: true}
			continue
		}
		isKey := c.Kind != ddl.RegularColumn
		p, ok := r.presets[c.Name]
		if !ok {
			p = preset{valueSize: !r.profile && !isKey}
		}
		if isKey && p.mode == modePayload {
			p.mode = modeIdentity
		}
		k := kinds[c.Type.Unfrozen().Name]
		if p.valueSize && (k == kText || k == kBlob) {
			if err := applyValueSize(&p, k, spec.Workload.ValueSize); err != nil {
				return nil, err
			}
		}
		if g, ok := given[i]; ok && g.CSVColumn != "" {
			// A CSV column is indexed by the global row id, key or not: row n of the run is
			// row n of the file, so a run of as many rows as the file writes the file.
			if file == nil {
				return nil, fmt.Errorf("schema.columns %q takes csvColumn %q but no CSV file was given: set schema.csv (mounted into the pods) or pass --csv-file", c.Name, g.CSVColumn)
			}
			v, err := csvValueGen(file, g.CSVColumn, c.Type)
			if err != nil {
				return nil, fmt.Errorf("schema.columns %q: %w", c.Name, err)
			}
			cols[i] = &colGen{name: c.Name, v: v, src: srcRow, isKey: isKey}
			continue
		}
		if g, ok := given[i]; ok {
			var err error
			if p, err = applyGenerator(p, k, g); err != nil {
				return nil, fmt.Errorf("schema.columns %q: %w", c.Name, err)
			}
		}
		v, err := newValueGen(c.Type, p, mix(uint64(spec.Workload.Seed)^fnv(c.Name)))
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		cg := &colGen{name: c.Name, v: v, src: srcRow, isKey: isKey}
		switch {
		case c.Kind == ddl.PartitionKeyColumn && v.mode == modeIdentity:
			cg.src = srcPartition
			partIDs = append(partIDs, cg)
		case c.Kind == ddl.PartitionKeyColumn:
			cg.src = srcAnchor
		case c.Kind == ddl.ClusteringColumn && v.mode == modeIdentity:
			cg.src = srcClustering
			clustIDs = append(clustIDs, cg)
		}
		cols[i] = cg
	}
	setRadix(partIDs)
	setRadix(clustIDs)
	return cols, nil
}

// setRadix spreads a number over identity columns, the last the least significant. A column
// of unbounded capacity takes the whole rest, so columns in front of it only repeat digits;
// small types (tinyint, boolean) take only as many values as they hold.
func setRadix(cols []*colGen) {
	div := uint64(1)
	for j := len(cols) - 1; j >= 0; j-- {
		c := cols[j]
		c.div, c.cap = div, c.v.capacity
		if c.cap == 0 || div == 0 {
			continue
		}
		hi, lo := bits.Mul64(div, c.cap)
		if hi != 0 {
			lo = 0
		}
		div = lo
	}
}

func applyValueSize(p *preset, k kind, vs *cbv1.SizeRange) error {
	if vs == nil || (vs.Min == nil && vs.Max == nil) {
		return nil
	}
	lo, hi := p.minSize, p.maxSize
	if !p.sized {
		lo, hi = defaultSizes(k, p.mode, p.format)
	}
	lo, hi = overrideSizes(lo, hi, vs.Min, vs.Max)
	if lo > hi {
		return fmt.Errorf("workload.valueSize.min %d exceeds max %d", lo, hi)
	}
	p.sized, p.minSize, p.maxSize = true, lo, hi
	return nil
}

// overrideSizes replaces the bounds that are given and moves the other one out of the way.
func overrideSizes(lo, hi int, newLo, newHi *int32) (int, int) {
	switch {
	case newLo != nil && newHi != nil:
		return int(*newLo), int(*newHi)
	case newLo != nil:
		return int(*newLo), max(hi, int(*newLo))
	case newHi != nil:
		return min(lo, int(*newHi)), int(*newHi)
	}
	return lo, hi
}

func applyGenerator(p preset, k kind, g cbv1.ColumnGenerator) (preset, error) {
	switch {
	case g.Cardinality > 0:
		p.mode, p.card = modeBounded, uint64(g.Cardinality)
		if g.Distribution != "" {
			p.dist = g.Distribution
		}
	case g.Distribution == cbv1.DistributionSequence:
		// As many values as rows, numbered in order.
		p.mode = modeIdentity
	case g.Distribution != "":
		if p.mode != modeBounded {
			return p, fmt.Errorf("distribution %s needs a cardinality to spread values over", g.Distribution)
		}
		p.dist = g.Distribution
	}
	if g.ZipfExponent != "" {
		p.zipf = g.ZipfExponent
	}
	if g.MinSize != nil || g.MaxSize != nil {
		lo, hi := p.minSize, p.maxSize
		if !p.sized {
			lo, hi = defaultSizes(k, p.mode, p.format)
		}
		lo, hi = overrideSizes(lo, hi, g.MinSize, g.MaxSize)
		if lo > hi {
			return p, fmt.Errorf("minSize %d exceeds maxSize %d", lo, hi)
		}
		p.sized, p.minSize, p.maxSize = true, lo, hi
	}
	return p, nil
}
