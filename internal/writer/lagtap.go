package writer

import (
	"time"

	"github.com/cassbench/cassbench/internal/workload"
)

// LagTap hands a sampled share of a writer's acknowledged single-row inserts to a
// replication-lag observer (internal/replag), which reads each back in another datacenter.
type LagTap struct {
	// Every is the share: one acknowledged insert in Every, counted per load goroutine
	// (1 when below it).
	Every int64
	// Expect gets the primary key of an acknowledged insert, bound as RowKeyCQL of the
	// workload's generator takes it, when the writer had the acknowledgement (its clock) and
	// its clock against Cassandra's. It must not block: the insert's goroutine calls it.
	Expect func(key []any, acked time.Time, clock ClockOffset)
}

// lagTap is one load goroutine's tap: it counts acknowledged inserts and copies the key of
// every Every-th, since the cells are refilled by the next operation.
type lagTap struct {
	tap   *LagTap
	key   []int
	clock *ClockOffset // measured before the window, once the tap is running
	n     int64
}

// acked notes one acknowledged insert of row.
func (t *lagTap) acked(row []*workload.Cell, now time.Time) {
	if t == nil {
		return
	}
	t.n++
	if t.n%max(t.tap.Every, 1) != 0 {
		return
	}
	key := make([]any, len(t.key))
	for i, c := range t.key {
		v := row[c].Value()
		if b, ok := v.([]byte); ok {
			v = append([]byte(nil), b...)
		}
		key[i] = v
	}
	t.tap.Expect(key, now, *t.clock)
}
