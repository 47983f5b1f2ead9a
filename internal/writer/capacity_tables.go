package writer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// A capacity search keeps its plan and its writers' figures in Cassandra, as the start
// barrier does: writer pods share nothing else. The plan has a row per round: the rate every
// writer runs at, from when, in how many parts of what length (a step is one round, or more
// when its p99 was not known well enough); rate 0 ends the search. Each writer writes a row
// per part of every round with the summary of that part, which the search (writer 0) merges
// as the controller merges whole runs.
const (
	CapacityPlanTable  = "cassbench_capacity_plan"
	CapacityPartsTable = "cassbench_capacity_parts"
)

// CapacityTablesCQL creates the capacity search's tables; setup runs them for a run with
// spec.capacity.
func CapacityTablesCQL(keyspace string) []string {
	return []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (run text, round int, rate bigint, at timestamp, parts int, part_ms bigint, PRIMARY KEY (run, round))", quote(keyspace), CapacityPlanTable),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (run text, round int, writer int, part int, summary blob, PRIMARY KEY ((run, round), writer, part))", quote(keyspace), CapacityPartsTable),
	}
}

// round is one row of the plan.
type round struct {
	Rate int64
	// At is the round's start on Cassandra's clock.
	At    time.Time
	Parts int
	Part  time.Duration
}

// capacityStore reads and writes a search's rows.
type capacityStore struct {
	session     *gocql.Session
	keyspace    string
	run         string
	consistency gocql.Consistency
	timeout     time.Duration
	// now is the writer's clock.
	now func() time.Time
}

func (c capacityStore) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// recordSlack is how long after its timeout a write of the search's own rows is still tried,
// and how long after the writers' timeout the search waits for their rows of a round.
const recordSlack = 30 * time.Second

// settle runs write, an idempotent write of the search's own rows, until it succeeds, ctx
// ends, or the timeout and recordSlack have passed, waiting longer between tries (250 ms,
// doubling up to 4 s). A step past the nodes' capacity queues these writes behind its load
// until the round ends and the queue drains: one timeout must lose neither a round's figures
// nor the plan the writers wait for.
func (c capacityStore) settle(ctx context.Context, write func(context.Context) error) (tries int, err error) {
	deadline := c.now().Add(c.timeout + recordSlack)
	wait := 250 * time.Millisecond
	for {
		tries++
		wctx, cancel := c.ctx(ctx)
		err = write(wctx)
		cancel()
		if err == nil || ctx.Err() != nil || c.now().Add(wait).After(deadline) {
			return tries, err
		}
		sleepCtx(ctx, jittered(wait))
		wait = min(2*wait, 4*time.Second)
	}
}

// plan writes round n of the plan.
func (c capacityStore) plan(ctx context.Context, n int, r round) error {
	q := fmt.Sprintf("INSERT INTO %s.%s (run, round, rate, at, parts, part_ms) VALUES (?, ?, ?, ?, ?, ?)", quote(c.keyspace), CapacityPlanTable)
	return c.insert(ctx, q, c.run, n, r.Rate, r.At, r.Parts, r.Part.Milliseconds())
}

// insert runs an INSERT of the search's own rows until it goes in (settle).
func (c capacityStore) insert(ctx context.Context, q string, values ...any) error {
	tries, err := c.settle(ctx, func(ctx context.Context) error {
		return c.session.Query(q, values...).Consistency(c.consistency).ExecContext(ctx)
	})
	if err != nil {
		return fmt.Errorf("%d tries: %w", tries, err)
	}
	return nil
}

// planned reads round n; false when it is not planned yet.
func (c capacityStore) planned(ctx context.Context, n int) (round, bool, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	q := fmt.Sprintf("SELECT rate, at, parts, part_ms FROM %s.%s WHERE run = ? AND round = ?", quote(c.keyspace), CapacityPlanTable)
	var r round
	var partMs int64
	err := c.session.Query(q, c.run, n).Consistency(c.consistency).ScanContext(ctx, &r.Rate, &r.At, &r.Parts, &partMs)
	if errors.Is(err, gocql.ErrNotFound) {
		return r, false, nil
	}
	r.Part = time.Duration(partMs) * time.Millisecond
	return r, err == nil, err
}

// awaitPlan polls for round n until it is planned or limit passes.
func (c capacityStore) awaitPlan(ctx context.Context, n int, limit time.Duration) (round, error) {
	deadline := c.now().Add(limit)
	for {
		r, ok, err := c.planned(ctx, n)
		if ok {
			return r, nil
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		if c.now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("not planned within %s (did writer 0, which runs the search, fail?)", limit)
			}
			return r, fmt.Errorf("capacity search: round %d: %w", n, err)
		}
		sleepCtx(ctx, jittered(250*time.Millisecond))
	}
}

// writePart records what a writer measured of round n: its summary of the whole round
// (part wholeRound), or for part p its cumulative response-time sketch at the part's end,
// which the search differences into each part's p99 (sketch.DiffQuantile).
func (c capacityStore) writePart(ctx context.Context, n int, writer int32, part int, b []byte) error {
	q := fmt.Sprintf("INSERT INTO %s.%s (run, round, writer, part, summary) VALUES (?, ?, ?, ?, ?)", quote(c.keyspace), CapacityPartsTable)
	return c.insert(ctx, q, c.run, n, int(writer), part, b)
}

// roundRows is what the writers recorded of a round: their summaries of it, and their
// cumulative sketches at the end of each part, by part.
type roundRows struct {
	wholes     []*summary.Summary
	cumulative [][]*sketch.Sketch
	count      int
}

// rows reads round n's records; one that does not decode is an error.
func (c capacityStore) rows(ctx context.Context, n, parts int) (roundRows, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	q := fmt.Sprintf("SELECT part, summary FROM %s.%s WHERE run = ? AND round = ?", quote(c.keyspace), CapacityPartsTable)
	iter := c.session.Query(q, c.run, n).Consistency(c.consistency).IterContext(ctx)
	out := roundRows{cumulative: make([][]*sketch.Sketch, parts)}
	var part int
	var b []byte
	for iter.Scan(&part, &b) {
		err := out.add(part, b)
		if err != nil {
			_ = iter.Close()
			return out, fmt.Errorf("round %d part %d: %w", n, part, err)
		}
	}
	return out, iter.Close()
}

func (r *roundRows) add(part int, b []byte) error {
	if part == wholeRound {
		s, err := summary.Decode(b)
		if err != nil {
			return err
		}
		r.wholes = append(r.wholes, s)
		r.count++
		return nil
	}
	if part < 0 || part >= len(r.cumulative) {
		return nil
	}
	sk := sketch.New()
	if err := json.Unmarshal(b, sk); err != nil {
		return err
	}
	r.cumulative[part] = append(r.cumulative[part], sk)
	r.count++
	return nil
}
