package cql

import (
	"encoding/binary"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// executeBody parses an EXECUTE frame as protocol v4 lays it out, returning its query flags,
// its values and its default timestamp (0 when the flag is not set).
func executeBody(t *testing.T, frame []byte) (flags byte, values [][]byte, ts int64) {
	t.Helper()
	if frame[0] != protoRequest || frame[4] != opExecute {
		t.Fatalf("header % x: not a v4 EXECUTE", frame[:headerLen])
	}
	if n := binary.BigEndian.Uint32(frame[5:headerLen]); int(n) != len(frame)-headerLen {
		t.Fatalf("header says a %d-byte body, the frame has %d", n, len(frame)-headerLen)
	}
	r := reader{b: frame[headerLen:]}
	r.shortBytes() // the prepared id
	r.short()      // the consistency
	flags = r.take(1)[0]
	if flags&queryValues != 0 {
		for n := r.short(); n > 0; n-- {
			values = append(values, r.bytes())
		}
	}
	if flags&queryDefaultTimestamp != 0 {
		ts = int64(binary.BigEndian.Uint64(r.take(8)))
	}
	if r.err != nil || len(r.b) != 0 {
		t.Fatalf("EXECUTE body: %v, %d bytes left over", r.err, len(r.b))
	}
	return flags, values, ts
}

// A direct EXECUTE carries a client timestamp, as the driver's requests do by default: the
// request's own when it has one, else the client's clock when it is encoded. The values come
// before it, a nil value as a null.
func TestExecuteCarriesTheClientTimestamp(t *testing.T) {
	st := &Statement{query: "INSERT INTO ks.t (k, v) VALUES (?, ?)"}
	q := st.NewRequest(gocql.LocalOne, 0, 2)
	q.Values[0], q.Values[1] = []byte{0, 0, 0, 0, 0, 0, 0, 7}, nil

	q.Timestamp = 1_700_000_000_123_456
	q.encode([]byte("id1"))
	flags, values, ts := executeBody(t, q.buf)
	if want := byte(queryValues | querySkipMetadata | queryDefaultTimestamp); flags != want {
		t.Errorf("query flags 0x%02x, want 0x%02x", flags, want)
	}
	if ts != q.Timestamp {
		t.Errorf("timestamp %d, want the request's %d", ts, q.Timestamp)
	}
	if len(values) != 2 || len(values[0]) != 8 || values[0][7] != 7 || values[1] != nil {
		t.Errorf("values %v, want the bigint 7 and a null", values)
	}

	q.Timestamp = 0
	before := time.Now().UnixMicro()
	q.encode([]byte("id1"))
	after := time.Now().UnixMicro()
	if _, _, ts := executeBody(t, q.buf); ts < before || ts > after {
		t.Errorf("a request without a timestamp was stamped %d, not the clock's [%d, %d]", ts, before, after)
	}
}
