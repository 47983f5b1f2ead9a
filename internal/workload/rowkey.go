package workload

import (
	"strings"

	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// rowKeyCQL selects one row by its whole primary key, and says which insert column (in
// table order, as InsertCQL binds them) fills each bind marker.
func rowKeyCQL(r *resolved) (string, []int) {
	t := r.table
	key := append(append([]int(nil), t.PartitionKey...), t.ClusteringKey...)
	conds := make([]string, len(key))
	for i, c := range key {
		conds[i] = ddl.QuoteIdent(t.Columns[c].Name) + " = ?"
	}
	first := ddl.QuoteIdent(t.Columns[key[0]].Name)
	return "select " + first + " from " + r.qualified() + " where " + strings.Join(conds, " and "), key
}

// RowKeyCQL is the SELECT of one written row by its primary key, as a replication-lag
// observer reads it back (internal/replag): the row, not its partition, since a partition
// written before would be found before the new row reached it.
func (g *Generator) RowKeyCQL() string { return g.rowCQL }

// RowKey says which of InsertCQL's bind values (their indexes) bind RowKeyCQL, in order.
func (g *Generator) RowKey() []int { return g.rowKey }
