package writer

import (
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
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
	// the batch entries are bound to these slices once, for good.
	rows     [][]any
	readArgs []any
	// insertKey and readKey route single statements; nil leaves routing to the driver.
	insertKey *routingKey
	readKey   *routingKey
	sinks     []any
	counters  []byteCounter
	readBytes int
}

// statements holds what preparing told about the insert and read statements.
type statements struct {
	insert, read gocql.StatementMetadata
}

func newCQLOp(s *gocql.Session, gen *workload.Generator, w cbv1.WorkloadSpec, writeCL, readCL gocql.Consistency, meta statements) *cqlOp {
	batchSize := max(int(w.BatchSize), 1)
	c := &cqlOp{gen: gen, rows: make([][]any, batchSize)}
	for i := range c.rows {
		c.rows[i] = make([]any, gen.InsertArity())
	}
	if batchSize > 1 {
		typ := gocql.UnloggedBatch
		if w.BatchType == "logged" {
			typ = gocql.LoggedBatch
		}
		c.batch = s.Batch(typ)
		c.batch.SetConsistency(writeCL)
		c.batch.Entries = make([]gocql.BatchEntry, batchSize)
		for i := range c.batch.Entries {
			c.batch.Entries[i] = gocql.BatchEntry{Stmt: gen.InsertCQL(), Args: c.rows[i], Idempotent: true}
		}
	} else {
		c.insert = s.Query(gen.InsertCQL(), c.rows[0]...).Consistency(writeCL).Idempotent(true)
		c.insertKey = newRoutingKey(meta.insert)
	}
	if w.ReadRatio > 0 {
		c.readArgs = make([]any, gen.ReadArity())
		c.read = s.Query(gen.ReadCQL()).Consistency(readCL).Idempotent(true)
		c.readKey = newRoutingKey(meta.read)
	}
	return c
}

func (c *cqlOp) bind(seq int64) (Kind, int) {
	if c.read != nil && c.gen.IsRead(seq) {
		n := c.gen.ReadArgs(seq, c.readArgs)
		c.read.Bind(c.readArgs[:n]...)
		route(c.read, c.readKey, c.readArgs[:n])
		return Read, 0
	}
	bytes := 0
	if len(c.rows) == 1 {
		bytes = c.gen.Row(seq, c.rows[0])
		route(c.insert, c.insertKey, c.rows[0])
		return Write, bytes
	}
	base := seq * int64(len(c.rows))
	for i, row := range c.rows {
		bytes += c.gen.Row(base+int64(i), row)
	}
	return Write, bytes
}

// route sets the query's routing key, or clears it for the driver to work out when it cannot
// be computed here.
func route(q *gocql.Query, r *routingKey, values []any) {
	if r == nil || q == nil {
		return
	}
	key, err := r.compute(values)
	if err != nil {
		key = nil
	}
	q.RoutingKey(key)
}

func (c *cqlOp) exec(k Kind) (int, error) {
	switch {
	case k == Read:
		iter := c.read.Iter()
		if cols := iter.Columns(); len(cols) != len(c.sinks) {
			c.resizeSinks(len(cols))
		}
		c.readBytes = 0
		for iter.Scan(c.sinks...) {
		}
		return c.readBytes, iter.Close()
	case c.batch != nil:
		return 0, c.batch.Exec()
	default:
		return 0, c.insert.Exec()
	}
}

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
