package workload

import "math/bits"

// IsRead says whether operation seq reads. Reads are spread evenly: any readRatio+writeRatio
// consecutive operations hold exactly readRatio reads.
func (g *Generator) IsRead(seq int64) bool {
	if g.mix != nil {
		return g.mix.kind(uint64(seq)) == OpRead
	}
	if g.readW == 0 {
		return false
	}
	s := uint64(seq)
	return g.writesBefore(s+1) == g.writesBefore(s)
}

// writesBefore counts the write operations among 0..s-1: ceil(s*writeW/total).
func (g *Generator) writesBefore(s uint64) uint64 {
	if g.mix != nil {
		return g.mix.rowsBefore(s)
	}
	if g.readW == 0 {
		return s
	}
	hi, lo := bits.Mul64(s, g.writeW)
	q, rem := bits.Div64(hi, lo, g.total)
	if rem != 0 {
		q++
	}
	return q
}

// Row fills dst (len InsertArity) with the bind values of a row and returns its payload bytes
// (the sum of the values' sizes). seq is the operation number when batchSize is 1; the rows of
// a batch for operation seq are Row(seq*B), ..., Row(seq*B+B-1). Calling it for an operation
// that IsRead writes the row of the next write operation.
//
// Row allocates only the values it cannot share and never reuses memory it handed out, so
// values stay valid after later calls with the same dst. Many values are shared (text and
// blobs are windows of read-only pools, small value sets are boxed once): bind them, never
// modify them.
func (g *Generator) Row(seq int64, dst []any) (bytes int) {
	s := uint64(seq)
	op, b := s/g.batch, s%g.batch
	return g.RowAt(int64(g.writesBefore(op)*g.batch+b), dst)
}

// RowAt fills dst like Row, for row ordinal row: this writer's rows numbered densely from 0,
// whatever the operation mix and batch size. Row maps operation numbers onto ordinals.
func (g *Generator) RowAt(row int64, dst []any) (bytes int) {
	k := g.keys.of(uint64(row))
	for i, c := range g.cols {
		v, n := c.v.value(g.number(c, k))
		dst[i] = v
		bytes += n
	}
	return bytes
}

func (g *Generator) number(c *colGen, k rowKey) uint64 {
	switch c.src {
	case srcPartition:
		return c.digit(k.pn)
	case srcClustering:
		return c.digit(k.gid)
	case srcAnchor:
		return c.v.choose(k.anchor)
	}
	return c.v.choose(k.gid)
}
