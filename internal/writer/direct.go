package writer

import (
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/summary"
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
	st, err := d.Prepare(meta.insert.Keyspace, gen.InsertCQL())
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
// it and the driver must. Either way the path is counted.
func (c *cqlOp) execDirect(ts int64) (sent bool, err error) {
	d := c.direct
	d.req.Timestamp = ts
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
	if why, notSent := cql.NotSent(err); notSent {
		c.paths.fellBack[why]++
		return false, nil
	}
	c.paths.direct++
	return true, err
}

// pathCounts are one load goroutine's write requests by the path that carried them.
type pathCounts struct {
	direct, driver int64
	// fellBack counts what Direct was given and left to the driver (counted in driver too).
	fellBack [cql.NumFallbacks]int64
}

// paths adds up the load goroutines' path counts; nil when they sent no write.
func (ld *load) paths() *summary.Paths {
	var p summary.Paths
	for _, op := range ld.eng.ops {
		c, ok := op.(*cqlOp)
		if !ok {
			continue
		}
		p.Direct += c.paths.direct
		p.Driver += c.paths.driver
		p.NoRoute += c.paths.fellBack[cql.FallbackNoRoute]
		p.Dial += c.paths.fellBack[cql.FallbackDial]
		p.Handshake += c.paths.fellBack[cql.FallbackHandshake]
		p.Auth += c.paths.fellBack[cql.FallbackAuth]
		p.Streams += c.paths.fellBack[cql.FallbackStreams]
	}
	if p.Direct+p.Driver == 0 {
		return nil
	}
	return &p
}

// reportPaths says on the progress stream how the writes travelled when Direct left any of
// them to the driver, with the last reason a direct connection could not be opened.
func (ld *load) reportPaths(p *summary.Paths) {
	if p == nil || p.FellBack() == 0 {
		return
	}
	cfg := ld.cfg
	fmt.Fprintf(cfg.Progress, "writer %d/%d: the direct path left %d of %d inserts to the driver (no route %d, dial error %d, handshake %d, auth challenge %d, streams exhausted %d)",
		cfg.Index, cfg.Writers, p.FellBack(), p.Direct+p.FellBack(), p.NoRoute, p.Dial, p.Handshake, p.Auth, p.Streams)
	if ld.conn.direct != nil {
		if err := ld.conn.direct.LastSetupError(); err != nil {
			fmt.Fprintf(cfg.Progress, "; last: %v", err)
		}
	}
	fmt.Fprintln(cfg.Progress)
}
