package workload

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// OpKind is a kind of operation: an insert (writeRatio), a read of readPath (readRatio) or one
// of workload.operations.
type OpKind uint8

const (
	OpInsert OpKind = iota
	OpRead
	OpUpdate
	OpDelete
	OpInsertIfNotExists
	OpCounterIncrement
	OpScanPartition
	OpScanTokenRange
	NumOpKinds
)

var opKindNames = [NumOpKinds]string{"insert", "read", string(cbv1.OperationUpdate), string(cbv1.OperationDelete),
	string(cbv1.OperationInsertIfNotExists), string(cbv1.OperationCounterIncrement),
	string(cbv1.OperationScanPartition), string(cbv1.OperationScanTokenRange)}

func (k OpKind) String() string {
	if k < NumOpKinds {
		return opKindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}

// OpKindOf is the kind of a workload.operations entry.
func OpKindOf(k cbv1.OperationKind) (OpKind, bool) {
	for i := OpUpdate; i < NumOpKinds; i++ {
		if opKindNames[i] == string(k) {
			return i, true
		}
	}
	return 0, false
}

// makesRow says whether an operation of kind k takes the next row ordinal: inserts write new
// rows, a lightweight transaction tries to, and a counter increment writes its row's counters.
// The other kinds act on rows that operations before them made.
func (k OpKind) makesRow() bool {
	return k == OpInsert || k == OpInsertIfNotExists || k == OpCounterIncrement
}

// IsScan says whether the kind reads every page of what it selects.
func (k OpKind) IsScan() bool { return k == OpScanPartition || k == OpScanTokenRange }

// opMix is one cycle of a weighted mix, interleaved by smooth weighted round robin (nginx's
// upstream balancing): in any window of the cycle each kind has about its share, and the
// cycle repeats, so kind, ordinal and rows before are pure functions of the operation number.
type opMix struct {
	cycle []OpKind
	// nth is each slot's ordinal among the slots of its kind in the cycle; rows counts the
	// row-making slots before each slot (len(cycle)+1 entries).
	nth    []uint32
	rows   []uint64
	weight [NumOpKinds]uint64
}

func newOpMix(weight [NumOpKinds]uint64) *opMix {
	var total uint64
	for _, w := range weight {
		total += w
	}
	m := &opMix{weight: weight, cycle: make([]OpKind, total), nth: make([]uint32, total), rows: make([]uint64, total+1)}
	var current [NumOpKinds]int64
	var seen [NumOpKinds]uint32
	for i := range m.cycle {
		best := -1
		for k, w := range weight {
			if w == 0 {
				continue
			}
			current[k] += int64(w)
			if best < 0 || current[k] > current[best] {
				best = k
			}
		}
		current[best] -= int64(total)
		k := OpKind(best)
		m.cycle[i], m.nth[i] = k, seen[k]
		seen[k]++
		m.rows[i+1] = m.rows[i]
		if k.makesRow() {
			m.rows[i+1]++
		}
	}
	return m
}

func (m *opMix) kind(s uint64) OpKind { return m.cycle[s%uint64(len(m.cycle))] }

// rowsBefore counts the row-making operations among 0..s-1.
func (m *opMix) rowsBefore(s uint64) uint64 {
	n := uint64(len(m.cycle))
	return s/n*m.rows[n] + m.rows[s%n]
}

// ordinal is operation s's number among the operations of its kind.
func (m *opMix) ordinal(s uint64) uint64 {
	n := uint64(len(m.cycle))
	return s/n*m.weight[m.kind(s)] + uint64(m.nth[s%n])
}

// kindOp is how a kind of workload.operations is made: its statement and what fills its
// bind markers.
type kindOp struct {
	cql string
	// set are the columns an update gives new values, key the columns that find the row (or
	// partition); an insertIfNotExists binds every column instead.
	set, key []*colGen
	pageSize int
	serial   cbv1.SerialConsistency
	splits   uint64
}

// withOperations adds workload.operations to the mix and builds their statements.
func (g *Generator) withOperations(r *resolved, w cbv1.WorkloadSpec) error {
	var weight [NumOpKinds]uint64
	weight[OpInsert], weight[OpRead] = g.writeW, g.readW
	counters := r.table.Counters()
	if len(counters) > 0 && g.writeW > 0 {
		return fmt.Errorf("table %s has counter columns, which take no INSERT: set workload.writeRatio to 0 and weigh counterIncrement in workload.operations", r.table.Name)
	}
	for _, o := range w.Operations {
		k, ok := OpKindOf(o.Kind)
		if !ok {
			return fmt.Errorf("workload.operations: kind %q is not one of update, delete, insertIfNotExists, counterIncrement, scanPartition or scanTokenRange", o.Kind)
		}
		if weight[k] != 0 && k >= OpUpdate {
			return fmt.Errorf("workload.operations lists %s twice: give each kind once, with its weight", k)
		}
		if o.Weight < 1 {
			return fmt.Errorf("workload.operations %s: weight %d is below 1, which the CRD defaults and refuses: the spec was not admitted", k, o.Weight)
		}
		if (k == OpInsertIfNotExists || k == OpCounterIncrement) && g.batch > 1 {
			return fmt.Errorf("workload.operations %s writes one row per operation: set workload.batchSize to 1", k)
		}
		op, err := g.kindOp(r, k, o, len(counters) > 0)
		if err != nil {
			return fmt.Errorf("workload.operations %s: %w", k, err)
		}
		weight[k] = uint64(o.Weight)
		g.ops[k] = op
	}
	g.mix = newOpMix(weight)
	// Reads, updates, deletes and scans target the rows the row-making kinds wrote before
	// them, which readTarget finds through writesBefore and writeW.
	g.writeW = weight[OpInsert] + weight[OpInsertIfNotExists] + weight[OpCounterIncrement]
	return nil
}

func (g *Generator) kindOp(r *resolved, k OpKind, o cbv1.Operation, counterTable bool) (*kindOp, error) {
	t := r.table
	keyOf := func(idx []int) []*colGen {
		out := make([]*colGen, len(idx))
		for i, c := range idx {
			out[i] = g.cols[c]
		}
		return out
	}
	rowKey := keyOf(append(append([]int{}, t.PartitionKey...), t.ClusteringKey...))
	ttl := ""
	if tt := g.ttl; tt > 0 {
		ttl = " using ttl " + strconv.Itoa(int(tt))
	}
	op := &kindOp{key: rowKey}
	switch k {
	case OpUpdate, OpCounterIncrement:
		if err := g.updateOp(op, r, k, o, counterTable, ttl); err != nil {
			return nil, err
		}
	case OpDelete:
		op.cql = "delete from " + r.qualified() + where(rowKey)
	case OpInsertIfNotExists:
		if counterTable {
			return nil, fmt.Errorf("table %s has counter columns, which take no INSERT", t.Name)
		}
		ins := insertCQL(r, 0)
		op.cql = ins + " if not exists" + ttl
		op.serial = o.SerialConsistency
		if op.serial == "" {
			op.serial = "SERIAL"
		}
	case OpScanPartition:
		op.key = keyOf(t.PartitionKey)
		op.cql = "select * from " + r.qualified() + where(op.key)
	case OpScanTokenRange:
		names := make([]string, len(t.PartitionKey))
		for i, c := range t.PartitionKey {
			names[i] = ddl.QuoteIdent(t.Columns[c].Name)
		}
		tok := "token(" + strings.Join(names, ", ") + ")"
		op.key = nil
		op.cql = "select * from " + r.qualified() + " where " + tok + " > ? and " + tok + " <= ?"
		op.splits = 256
		if o.Splits > 0 {
			op.splits = uint64(o.Splits)
		}
	}
	if k.IsScan() {
		op.pageSize = 5000
		if o.PageSize > 0 {
			op.pageSize = int(o.PageSize)
		}
	}
	return op, nil
}

// updateOp makes an update, or a counter increment, of the columns o names (all but the key
// when none) on the row op.key finds.
func (g *Generator) updateOp(op *kindOp, r *resolved, k OpKind, o cbv1.Operation, counterTable bool, ttl string) error {
	t := r.table
	if (k == OpUpdate) == counterTable {
		if counterTable {
			return fmt.Errorf("table %s has counter columns, which take counterIncrement, not update", t.Name)
		}
		return fmt.Errorf("table %s has no counter column: counterIncrement needs one (profile counters, or a cql table with counter columns)", t.Name)
	}
	cols, err := g.setColumns(t, o.Columns, k == OpCounterIncrement)
	if err != nil {
		return err
	}
	sets := make([]string, len(cols))
	for i, c := range cols {
		n := ddl.QuoteIdent(c.name)
		if k == OpCounterIncrement {
			sets[i] = n + " = " + n + " + 1"
		} else {
			sets[i] = n + " = ?"
			op.set = append(op.set, c)
		}
	}
	if k == OpCounterIncrement {
		// A counter update takes no TTL.
		ttl = ""
	}
	op.cql = "update " + r.qualified() + ttl + " set " + strings.Join(sets, ", ") + where(op.key)
	return nil
}

// where is a WHERE clause binding each column by equality.
func where(cols []*colGen) string {
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = ddl.QuoteIdent(c.name) + " = ?"
	}
	return " where " + strings.Join(conds, " and ")
}

// setColumns are the columns an update or a counter increment names, by default every
// regular column it can set.
func (g *Generator) setColumns(t *ddl.Table, names []string, counters bool) ([]*colGen, error) {
	var out []*colGen
	if len(names) == 0 {
		for i, c := range t.Columns {
			if c.Kind == ddl.RegularColumn && g.cols[i].counter == counters {
				out = append(out, g.cols[i])
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("table %s has no regular column to set", t.Name)
		}
		return out, nil
	}
	for _, n := range names {
		i := t.Column(n)
		switch {
		case i < 0:
			return nil, fmt.Errorf("columns names %q, which table %s does not have", n, t.Name)
		case t.Columns[i].Kind != ddl.RegularColumn:
			return nil, fmt.Errorf("columns names %q, which is in the primary key and cannot be set", n)
		case g.cols[i].counter != counters && counters:
			return nil, fmt.Errorf("columns names %q, which is not a counter column", n)
		case g.cols[i].counter != counters:
			return nil, fmt.Errorf("columns names %q, a counter column, which only counterIncrement changes", n)
		}
		out = append(out, g.cols[i])
	}
	return out, nil
}

// Kind is the kind of operation seq.
func (g *Generator) Kind(seq int64) OpKind {
	if g.mix != nil {
		return g.mix.kind(uint64(seq))
	}
	if g.IsRead(seq) {
		return OpRead
	}
	return OpInsert
}

// Kinds lists the kinds of workload.operations in the mix, in OpKind order.
func (g *Generator) Kinds() []OpKind {
	var out []OpKind
	for k := OpUpdate; k < NumOpKinds; k++ {
		if g.ops[k] != nil {
			out = append(out, k)
		}
	}
	return out
}

// CQL is the prepared statement of a kind of workload.operations; "" when the mix has none.
func (g *Generator) CQL(k OpKind) string {
	if k >= NumOpKinds || g.ops[k] == nil {
		return ""
	}
	return g.ops[k].cql
}

// Arity is the number of bind markers of CQL(k).
func (g *Generator) Arity(k OpKind) int {
	op := g.ops[k]
	switch k {
	case OpInsertIfNotExists:
		return len(g.cols)
	case OpScanTokenRange:
		return 2
	}
	return len(op.set) + len(op.key)
}

// PageSize is the rows per page of a scan kind.
func (g *Generator) PageSize(k OpKind) int { return g.ops[k].pageSize }

// SerialConsistency is the serial consistency of insertIfNotExists.
func (g *Generator) SerialConsistency() cbv1.SerialConsistency {
	if op := g.ops[OpInsertIfNotExists]; op != nil {
		return op.serial
	}
	return ""
}

// Args fills dst (len Arity(k)) with the bind values of operation seq, of kind k, and returns
// the value bytes it writes. An update sets new values on a row written before seq; a delete
// deletes one; a scanPartition reads one's partition: they pick rows as reads do. An
// insertIfNotExists tries the row an insert in its place would write, so keys that repeat
// (workload.partitions) meet rows that exist; a counterIncrement adds 1 to that row's
// counters. A scanTokenRange reads the next of splits equal token ranges, the writers taking
// them in turn.
func (g *Generator) Args(k OpKind, seq int64, dst []any) (bytes int) {
	s := uint64(seq)
	op := g.ops[k]
	switch k {
	case OpInsertIfNotExists:
		return g.RowAt(int64(g.writesBefore(s)*g.batch), dst)
	case OpScanTokenRange:
		i := (g.mix.ordinal(s)*g.keys.writers + g.keys.index) % op.splits
		dst[0], dst[1] = tokenBound(i, op.splits), tokenBound(i+1, op.splits)
		return 0
	}
	var row rowKey
	if k == OpCounterIncrement {
		row = g.keys.of(g.writesBefore(s))
	} else {
		row = g.keys.of(g.readTarget(s))
	}
	n := 0
	for _, c := range op.set {
		v, b := c.v.value(c.v.choose(mix(s ^ g.updateSalt ^ fnv(c.name))))
		dst[n] = v
		bytes += b
		n++
	}
	for _, c := range op.key {
		dst[n], _ = c.v.value(g.number(c, row))
		n++
	}
	return bytes
}

// tokenBound is the i-th of splits+1 bounds that cut the Murmur3 ring into equal ranges: the
// ranges (bound(i), bound(i+1)] cover every token, as Murmur3Partitioner never hands out the
// minimum, from which the first range starts.
func tokenBound(i, splits uint64) int64 {
	if i >= splits {
		return math.MaxInt64
	}
	// i * 2^64 / splits, from the ring's minimum.
	q, _ := bits.Div64(i, 0, splits)
	return int64(q - 1<<63)
}
