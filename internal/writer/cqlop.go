package writer

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/workload"
)

// cqlOp is one load goroutine's statements and value buffers. Everything an operation needs
// is allocated here once; an operation only refills the buffers in place.
type cqlOp struct {
	gen    *workload.Generator
	insert *gocql.Query
	read   *gocql.Query
	batch  *gocql.Batch
	// rows holds one value slice per batch entry (one without batches); the insert query and
	// the batch entries are bound to these slices once, for good. Each value is a *cell that
	// the generator refills through cells.
	rows     [][]any
	cells    [][]*workload.Cell
	readArgs []any
	// insertKey and readKey route single statements; nil leaves routing to the driver.
	insertKey *routingKey
	readKey   *routingKey
	// insertRoute and readRoute hand the keys to the session's policy through the contexts
	// the statements run with.
	insertRoute, readRoute *cql.Route
	// deadline bounds each request; insertCtx and readCtx are it, carrying the routes.
	deadline           *cql.Deadline
	insertCtx, readCtx context.Context
	sinks              []any
	counters           []byteCounter
	readBytes          int
	// kinds are the statements of workload.operations, nil for kinds outside the mix.
	kinds [numKinds]*kindStmt
	// pages and lwt are what the last scan or lightweight transaction told (see detailer).
	pages int
	lwt   lwtResult
	// applied receives a lightweight transaction's [applied] column; lwtDest is it followed
	// by sinks for the existing row's columns.
	applied   bool
	lwtDest   []any
	pageState []byte
	// verify compares what reads return with what was written (workload.verifyReads);
	// readSeq is the read it compares.
	verify  *verifier
	readSeq int64
	// direct sends the single-row inserts past the driver's request path (see goDirect).
	direct *directInsert
	// now is the writer's clock, which timestamps every write (see stamp).
	now func() time.Time
	// paths counts the write requests by the path that carried them.
	paths pathCounts
	// lag, when set, hands sampled acknowledged inserts to a replication-lag observer.
	lag *lagTap
}

// statements holds what preparing told about the insert, read and workload.operations
// statements.
type statements struct {
	insert, read gocql.StatementMetadata
	kinds        [numKinds]gocql.StatementMetadata
}

// kindStmt is the statement of one kind of workload.operations with its bind values and
// route.
type kindStmt struct {
	q     *gocql.Query
	args  []any
	key   *routingKey
	route *cql.Route
	ctx   context.Context
}

func newCQLOp(s *gocql.Session, gen *workload.Generator, w cbv1.WorkloadSpec, writeCL, readCL gocql.Consistency, meta statements, deadline *cql.Deadline, now func() time.Time) *cqlOp {
	batchSize := max(int(w.BatchSize), 1)
	c := &cqlOp{gen: gen, deadline: deadline, insertCtx: deadline, readCtx: deadline, now: now}
	c.allocRows(batchSize)
	if batchSize > 1 {
		typ := gocql.UnloggedBatch
		if w.BatchType == "logged" {
			typ = gocql.LoggedBatch
		}
		c.batch = s.Batch(typ)
		c.batch.Consistency(writeCL)
		c.batch.Entries = make([]gocql.BatchEntry, batchSize)
		for i := range c.batch.Entries {
			c.batch.Entries[i] = gocql.BatchEntry{Stmt: gen.InsertCQL(), Args: c.rows[i], Idempotent: true}
		}
	} else {
		c.insert = s.Query(gen.InsertCQL(), c.rows[0]...).Consistency(writeCL).Idempotent(true)
		c.insertKey = newRoutingKey(meta.insert)
		c.insertRoute, c.insertCtx = newRoute(c.insertKey, deadline)
	}
	for _, k := range gen.Kinds() {
		cl := writeCL
		if k.IsScan() {
			cl = readCL
		}
		ks := &kindStmt{q: s.Query(gen.CQL(k)).Consistency(cl).Idempotent(Kind(k).idempotent()), args: make([]any, gen.Arity(k))}
		if k.IsScan() {
			ks.q.PageSize(gen.PageSize(k))
		}
		if k == workload.OpInsertIfNotExists {
			serial := gocql.Serial
			if gen.SerialConsistency() == "LOCAL_SERIAL" {
				serial = gocql.LocalSerial
			}
			ks.q.SerialConsistency(serial)
		}
		ks.key = newRoutingKey(meta.kinds[k])
		ks.route, ks.ctx = newRoute(ks.key, deadline)
		c.kinds[k] = ks
	}
	if w.ReadRatio > 0 {
		c.readArgs = make([]any, gen.ReadArity())
		c.read = s.Query(gen.ReadCQL()).Consistency(readCL).Idempotent(true)
		c.readKey = newRoutingKey(meta.read)
		c.readRoute, c.readCtx = newRoute(c.readKey, deadline)
	}
	return c
}

// allocRows gives c n rows of cells.
func (c *cqlOp) allocRows(n int) {
	c.rows, c.cells = make([][]any, n), make([][]*workload.Cell, n)
	for i := range c.rows {
		row := make([]cell, c.gen.InsertArity())
		c.rows[i], c.cells[i] = make([]any, len(row)), make([]*workload.Cell, len(row))
		for j := range row {
			c.rows[i][j], c.cells[i][j] = &row[j], &row[j].Cell
		}
	}
}

func (c *cqlOp) bind(seq int64) (Kind, int) {
	if c.kinds != [numKinds]*kindStmt{} {
		if k := c.gen.Kind(seq); k > workload.OpRead {
			ks := c.kinds[k]
			bytes := c.gen.Args(k, seq, ks.args)
			ks.q.Bind(ks.args...)
			route(ks.route, ks.key, ks.args)
			return Kind(k), bytes
		}
	}
	if c.read != nil && c.gen.IsRead(seq) {
		c.readSeq = seq
		n := c.gen.ReadArgs(seq, c.readArgs)
		c.read.Bind(c.readArgs[:n]...)
		route(c.readRoute, c.readKey, c.readArgs[:n])
		return Read, 0
	}
	bytes := 0
	if len(c.rows) == 1 {
		bytes = c.gen.RowCells(seq, c.cells[0])
		route(c.insertRoute, c.insertKey, c.rows[0])
		return Write, bytes
	}
	base := seq * int64(len(c.rows))
	for i, row := range c.cells {
		bytes += c.gen.RowCells(base+int64(i), row)
	}
	return Write, bytes
}

// newRoute returns the route of a statement with routing key k, and parent carrying it; a
// statement without one runs with parent itself.
func newRoute(k *routingKey, parent context.Context) (*cql.Route, context.Context) {
	if k == nil {
		return nil, parent
	}
	r := cql.NewRoute()
	return r, r.Context(parent)
}

// route sets the routing key of the next execution, or clears it for the driver to work out
// when it cannot be computed here.
func route(r *cql.Route, k *routingKey, values []any) {
	if r == nil || k == nil {
		return
	}
	key, err := k.compute(values)
	if err != nil {
		key = nil
	}
	r.SetKey(key)
}

func (c *cqlOp) exec(k Kind) (int, int, error) {
	c.deadline.Arm()
	defer c.deadline.Disarm()
	switch {
	case k == Read && c.verify != nil:
		return c.verify.read(c, c.read.IterContext(c.readCtx))
	case k == Read:
		iter := c.read.IterContext(c.readCtx)
		if cols := iter.Columns(); len(cols) != len(c.sinks) {
			c.resizeSinks(len(cols))
		}
		c.readBytes = 0
		rows := 0
		// A page fetched while scanning is a request of its own and gets a whole timeout, as
		// the driver's timer gave each request: re-arming per row costs two atomic stores.
		for c.deadline.Arm(); iter.Scan(c.sinks...); c.deadline.Arm() {
			rows++
		}
		return c.readBytes, rows, iter.Close()
	case k > Read:
		return c.execKind(k)
	case c.batch != nil:
		c.paths.driver++
		c.batch.WithTimestamp(c.stamp())
		return 0, 0, c.batch.ExecContext(c.insertCtx)
	default:
		ts := c.stamp()
		if c.direct != nil {
			if sent, err := c.execDirect(ts); sent {
				return 0, 0, c.ack(err)
			}
		}
		c.paths.driver++
		c.insert.WithTimestamp(ts)
		return 0, 0, c.ack(c.insert.ExecContext(c.insertCtx))
	}
}

// ack hands an acknowledged single-row insert to the lag tap, if any, and returns err.
func (c *cqlOp) ack(err error) error {
	if err == nil && c.lag != nil {
		c.lag.acked(c.cells[0], c.now())
	}
	return err
}

// stamp is the timestamp of a write attempt, in microseconds: the writer's clock, as the
// driver stamps every request by default with its machine's clock. Every write kind, on
// either path (Direct or the driver, Batched or Stock), is stamped here, so which of two
// writes to a key wins is decided by one clock, never by the coordinator's for some of them.
func (c *cqlOp) stamp() int64 { return c.now().UnixMicro() }

// execKind runs an operation of workload.operations. A scan fetches its pages one request
// at a time, each with its own timeout, and counts them; a lightweight transaction reads its
// [applied] column.
func (c *cqlOp) execKind(k Kind) (int, int, error) {
	ks := c.kinds[k]
	c.pages, c.lwt = 0, lwtNone
	switch workload.OpKind(k) {
	case workload.OpScanPartition, workload.OpScanTokenRange:
		c.readBytes = 0
		rows := 0
		ks.q.PageState(nil)
		for {
			c.deadline.Arm()
			iter := ks.q.IterContext(ks.ctx)
			if cols := iter.Columns(); len(cols) != len(c.sinks) {
				c.resizeSinks(len(cols))
			}
			for iter.Scan(c.sinks...) {
				rows++
			}
			c.pageState = append(c.pageState[:0], iter.PageState()...)
			if err := iter.Close(); err != nil {
				return c.readBytes, rows, err
			}
			c.pages++
			if len(c.pageState) == 0 {
				return c.readBytes, rows, nil
			}
			ks.q.PageState(c.pageState)
		}
	case workload.OpInsertIfNotExists:
		c.paths.driver++
		ks.q.WithTimestamp(c.stamp())
		iter := ks.q.IterContext(ks.ctx)
		cols := iter.Columns()
		if len(c.lwtDest) < len(cols) {
			c.resizeSinks(len(cols))
			c.lwtDest = append([]any{&c.applied}, c.sinks...)
		}
		c.applied = false
		scanned := len(cols) > 0 && iter.Scan(c.lwtDest[:len(cols)]...)
		if err := iter.Close(); err != nil {
			return 0, 0, err
		}
		switch {
		case !scanned:
			return 0, 0, errNoApplied
		case c.applied:
			c.lwt = lwtApplied
		default:
			c.lwt = lwtNotApplied
		}
		return 0, 0, nil
	}
	c.paths.driver++
	ks.q.WithTimestamp(c.stamp())
	return 0, 0, ks.q.ExecContext(ks.ctx)
}

// errNoApplied is a lightweight transaction answered without its [applied] row.
var errNoApplied = errors.New("lightweight transaction returned no [applied] row")

func (c *cqlOp) detail() (int, lwtResult) { return c.pages, c.lwt }

func (c *cqlOp) resizeSinks(n int) {
	c.counters = make([]byteCounter, n)
	c.sinks = make([]any, n)
	for i := range c.counters {
		c.counters[i].total = &c.readBytes
		c.sinks[i] = &c.counters[i]
	}
}

// byteCounter takes a column's raw value and only counts its bytes: reads are measured, not
// decoded.
type byteCounter struct{ total *int }

func (b *byteCounter) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*b.total += len(data)
	return nil
}

// cell is a generated value as the driver takes it: a bigint or a blob is serialized without
// boxing it or allocating a buffer, anything else as the driver serializes it.
type cell struct {
	workload.Cell
	buf [8]byte
}

func (c *cell) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if b, ok := c.raw(info); ok {
		return b, nil
	}
	return gocql.Marshal(info, c.Value())
}

// raw is the serialized value when it takes no allocation; it is valid until the next call.
func (c *cell) raw(info gocql.TypeInfo) ([]byte, bool) {
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter:
		if i, ok := c.Int64(); ok {
			binary.BigEndian.PutUint64(c.buf[:], uint64(i))
			return c.buf[:], true
		}
	case gocql.TypeBlob:
		if b, ok := c.Bytes(); ok {
			return b, true
		}
	}
	return nil, false
}
