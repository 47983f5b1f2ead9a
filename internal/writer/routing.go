package writer

import (
	"encoding/binary"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// routingKey computes a statement's routing key (the serialized partition key) from its bound
// values into a buffer its goroutine reuses. Left to itself the driver looks the statement
// up on every request in a session-wide cache under one mutex, building a fresh cache key and
// marshalling the key again each time; with a hundred goroutines that is both garbage and
// contention.
type routingKey struct {
	idx   []int
	types []gocql.TypeInfo
	buf   []byte
}

// newRoutingKey returns nil when the statement binds no complete partition key (an index
// read): the driver then routes by its fallback policy, as it would anyway.
func newRoutingKey(meta gocql.StatementMetadata) *routingKey {
	if len(meta.PKBindColumnIndexes) == 0 {
		return nil
	}
	r := &routingKey{idx: meta.PKBindColumnIndexes}
	for _, i := range r.idx {
		r.types = append(r.types, meta.BindColumns[i].TypeInfo)
	}
	return r
}

// compute returns the routing key of values; it stays valid until the next call.
func (r *routingKey) compute(values []any) ([]byte, error) {
	r.buf = r.buf[:0]
	if len(r.idx) == 1 {
		var err error
		r.buf, err = appendValue(r.buf, r.types[0], values[r.idx[0]])
		return r.buf, err
	}
	// A composite key is each component as a 2-byte length, the bytes and a 0 byte.
	for n, i := range r.idx {
		at := len(r.buf)
		r.buf = append(r.buf, 0, 0)
		var err error
		if r.buf, err = appendValue(r.buf, r.types[n], values[i]); err != nil {
			return nil, err
		}
		size := len(r.buf) - at - 2
		if size > 0xffff {
			return nil, fmt.Errorf("partition key component of %d bytes", size)
		}
		binary.BigEndian.PutUint16(r.buf[at:], uint16(size))
		r.buf = append(r.buf, 0)
	}
	return r.buf, nil
}

// appendValue serializes the key types the built-in profiles use without allocating, and
// anything else through the driver.
func appendValue(buf []byte, info gocql.TypeInfo, v any) ([]byte, error) {
	if c, ok := v.(*cell); ok {
		if b, ok := c.raw(info); ok {
			return append(buf, b...), nil
		}
		v = c.Value()
	}
	switch info.Type() {
	case gocql.TypeBigInt, gocql.TypeCounter:
		if x, ok := v.(int64); ok {
			return binary.BigEndian.AppendUint64(buf, uint64(x)), nil
		}
	case gocql.TypeInt:
		if x, ok := v.(int32); ok {
			return binary.BigEndian.AppendUint32(buf, uint32(x)), nil
		}
	case gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii:
		if x, ok := v.(string); ok {
			return append(buf, x...), nil
		}
	case gocql.TypeBlob:
		if x, ok := v.([]byte); ok {
			return append(buf, x...), nil
		}
	}
	b, err := gocql.Marshal(info, v)
	if err != nil {
		return nil, fmt.Errorf("marshalling partition key: %w", err)
	}
	return append(buf, b...), nil
}
