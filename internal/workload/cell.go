package workload

// Cell is one bind value of a row that RowCells refills in place, for a caller that
// serializes values itself: a bigint or a blob stays unboxed, where Row's []any costs an
// allocation for each (the interface holding the number or the slice header). Values that
// Row shares (boxed tables, palettes) are held as they are.
type Cell struct {
	kind cellKind
	i    int64
	b    []byte
	v    any
}

type cellKind uint8

const (
	cellAny cellKind = iota
	cellInt64
	cellBytes
)

// Int64 is the cell's bigint when it holds one unboxed.
func (c *Cell) Int64() (int64, bool) { return c.i, c.kind == cellInt64 }

// Bytes is the cell's blob when it holds one unboxed.
func (c *Cell) Bytes() ([]byte, bool) { return c.b, c.kind == cellBytes }

// Value is the value Row would have put in dst; it boxes an unboxed bigint or blob.
func (c *Cell) Value() any {
	switch c.kind {
	case cellInt64:
		return c.i
	case cellBytes:
		return c.b
	}
	return c.v
}

// RowCells fills dst (len InsertArity) with the values Row would, and returns the same payload
// bytes.
func (g *Generator) RowCells(seq int64, dst []*Cell) (bytes int) {
	s := uint64(seq)
	op, b := s/g.batch, s%g.batch
	k := g.keys.of(g.writesBefore(op)*g.batch + b)
	for i, c := range g.cols {
		bytes += c.v.cell(g.number(c, k), dst[i])
	}
	return bytes
}

// cell is value into a Cell, unboxed where value would render a new bigint or blob.
func (g *valueGen) cell(x uint64, c *Cell) int {
	if !g.palette && x >= uint64(len(g.boxed)) {
		switch g.kind {
		case kBigint:
			c.kind, c.i, c.v = cellInt64, int64(x), nil
			return 8
		case kBlob:
			c.kind, c.b, c.v = cellBytes, g.blobOf(x), nil
			return len(c.b)
		}
	}
	v, n := g.value(x)
	c.kind, c.v, c.b = cellAny, v, nil
	return n
}
