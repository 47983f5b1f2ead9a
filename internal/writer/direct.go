package writer

import (
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/workload"
)

// directInsert is a load goroutine's single-row insert through cql.Direct: the same
// statement, values and route as the driver's, sent without the driver's request path.
type directInsert struct {
	req   *cql.Request
	types []gocql.TypeInfo
}

// goDirect sends op's single-row inserts through d when the statement allows it: a routing
// key (Direct routes by token) and no batch. Everything else stays with the driver, as does
// an insert Direct has no connection for.
func (c *cqlOp) goDirect(d *cql.Direct, gen *workload.Generator, cons gocql.Consistency, meta statements, slot int) {
	if d == nil || c.insert == nil || c.insertKey == nil || len(meta.insert.BindColumns) != len(c.rows[0]) {
		return
	}
	st, err := d.Prepare(gen.InsertCQL())
	if err != nil {
		return
	}
	types := make([]gocql.TypeInfo, len(meta.insert.BindColumns))
	for i, col := range meta.insert.BindColumns {
		types[i] = col.TypeInfo
	}
	c.direct = &directInsert{req: st.NewRequest(cons, slot, len(types)), types: types}
}

// execDirect runs the bound insert through Direct; sent is false when Direct could not take
// it and the driver must.
func (c *cqlOp) execDirect() (sent bool, err error) {
	d := c.direct
	for i, v := range c.rows[0] {
		cl := v.(*cell)
		b, ok := cl.raw(d.types[i])
		if !ok {
			if b, err = gocql.Marshal(d.types[i], cl.Value()); err != nil {
				return true, err
			}
		}
		d.req.Values[i] = b
	}
	err = d.req.Exec(c.deadline, c.insertRoute)
	if errors.Is(err, cql.ErrNoRoute) {
		return false, nil
	}
	return true, err
}
