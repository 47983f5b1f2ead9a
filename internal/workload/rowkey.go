package workload

import "strings"

// rowKeyCQL selects one row by its whole primary key, and says which insert column (in
// table order, as InsertCQL binds them) fills each bind marker.
func rowKeyCQL(r *resolved) (string, []int) {
	t := r.table
	key := append(append([]int(nil), t.partition...), t.clustering...)
	conds := make([]string, len(key))
	for i, c := range key {
		conds[i] = quoteIdent(t.columns[c].name) + " = ?"
	}
	first := quoteIdent(t.columns[key[0]].name)
	return "select " + first + " from " + r.qualified() + " where " + strings.Join(conds, " and "), key
}

// RowKeyCQL is the SELECT of one written row by its primary key, as a replication-lag
// observer reads it back (internal/replag): the row, not its partition, since a partition
// written before would be found before the new row reached it.
func (g *Generator) RowKeyCQL() string { return g.rowCQL }

// RowKey says which of InsertCQL's bind values (their indexes) bind RowKeyCQL, in order.
func (g *Generator) RowKey() []int { return g.rowKey }
