package writer

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// settle counts, once, what this writer's arrival completed: its group, then, if the group
// is complete, every group; and decides when that is the whole barrier. Reads and writes are
// at the barrier's consistency, QUORUM where there are replicas to disagree, so the writer
// whose arrival was acknowledged last sees every other arrival: at least one writer decides.
// It reports whether the count was made; a failed one is made again at the next poll.
func (b Barrier) settle(ctx context.Context) bool {
	latest, complete, err := b.countFrom(ctx, b.Index/groupSize(b.Writers))
	if err != nil {
		return false
	}
	if complete {
		return b.decide(ctx, latest) == nil
	}
	return true
}

// countFrom reads group g; if it is complete, marks it so and reads the groups partition.
// It returns the latest arrival and whether every group is complete.
func (b Barrier) countFrom(ctx context.Context, g int32) (time.Time, bool, error) {
	rows, err := b.rows(ctx, groupKey(b.Run, g))
	if err != nil {
		return time.Time{}, false, err
	}
	latest, ok := latestOf(ats(rows), groupMembers(g, b.Writers))
	if !ok {
		return time.Time{}, false, nil
	}
	if err := b.exec(ctx, b.insert(), groupsKey(b.Run), int(g), latest); err != nil {
		return time.Time{}, false, err
	}
	groups, err := b.rows(ctx, groupsKey(b.Run))
	if err != nil {
		return time.Time{}, false, err
	}
	latest, ok = latestOf(ats(groups), groupCount(b.Writers))
	return latest, ok, nil
}

// recount counts every group: those marked complete from the groups partition, the others
// by reading them (and marking those that completed since). A waiter does this at its
// deadline, to learn whether writers still arrive, and where no writer decided.
func (b Barrier) recount(ctx context.Context) (tally, error) {
	groups, err := b.rows(ctx, groupsKey(b.Run))
	if err != nil {
		return tally{}, err
	}
	marked := map[int32]time.Time{}
	for _, r := range groups {
		marked[r.writer] = r.at
	}
	var t tally
	for g := range groupCount(b.Writers) {
		members := groupMembers(g, b.Writers)
		if at, ok := marked[g]; ok {
			t.add(members, at)
			continue
		}
		rows, err := b.rows(ctx, groupKey(b.Run, g))
		if err != nil {
			return tally{}, err
		}
		latest, complete := latestOf(ats(rows), members)
		if complete {
			if err := b.exec(ctx, b.insert(), groupsKey(b.Run), int(g), latest); err != nil {
				return tally{}, err
			}
			t.add(members, latest)
			continue
		}
		t.add(int32(len(rows)), latest)
	}
	t.complete = t.seen >= b.Writers && t.seen > 0
	return t, nil
}

// decide writes the go row. The start barrier's is written once, as a lightweight
// transaction, so that every writer reads the same start whichever decided first; the end
// barrier's carries no value, and a plain write at ONE reaches it with a replica down.
func (b Barrier) decide(ctx context.Context, latest time.Time) error {
	now, _ := b.clock()
	decided := now().Add(-b.Offset)
	if b.ending {
		return b.exec(ctx, b.insert(), goKey(b.Run), 0, decided)
	}
	qctx, cancel := b.queryContext(ctx)
	defer cancel()
	stmt := b.insert() + " IF NOT EXISTS"
	existing := map[string]any{}
	_, err := b.Session.Query(stmt, goKey(b.Run), 0, CommonStart(latest, decided)).
		Consistency(b.Consistency).SerialConsistency(gocql.Serial).MapScanCASContext(qctx, existing)
	if err != nil {
		return fmt.Errorf("recording the start: %w", err)
	}
	return nil
}

// decision reads the go row.
func (b Barrier) decision(ctx context.Context) (time.Time, bool, error) {
	rows, err := b.rows(ctx, goKey(b.Run))
	if err != nil || len(rows) == 0 {
		return time.Time{}, false, err
	}
	return rows[0].at, true, nil
}

type barrierRow struct {
	writer int32
	at     time.Time
}

func ats(rows []barrierRow) []time.Time {
	out := make([]time.Time, len(rows))
	for i, r := range rows {
		out[i] = r.at
	}
	return out
}

func (b Barrier) insert() string {
	return fmt.Sprintf("INSERT INTO %s.%s (run, writer, at) VALUES (?, ?, ?)", quote(b.Keyspace), BarrierTable)
}

func (b Barrier) exec(ctx context.Context, stmt string, values ...any) error {
	ctx, cancel := b.queryContext(ctx)
	defer cancel()
	return b.Session.Query(stmt, values...).Consistency(b.Consistency).ExecContext(ctx)
}

// rows reads one of the barrier's partitions.
func (b Barrier) rows(ctx context.Context, key string) ([]barrierRow, error) {
	ctx, cancel := b.queryContext(ctx)
	defer cancel()
	sel := fmt.Sprintf("SELECT writer, at FROM %s.%s WHERE run = ?", quote(b.Keyspace), BarrierTable)
	iter := b.Session.Query(sel, key).Consistency(b.Consistency).IterContext(ctx)
	var out []barrierRow
	var r barrierRow
	var writer int
	for iter.Scan(&writer, &r.at) {
		r.writer = int32(writer)
		out = append(out, r)
	}
	return out, iter.Close()
}
