// Package replag measures replication lag between datacenters: how long a write acknowledged
// in one datacenter takes to become readable at LOCAL_ONE in another. Writers hand a sampled
// share of the keys they wrote to an Observer, which reads each back through a session whose
// local datacenter is the observed one until it sees the row or gives up on it.
//
// Time to visibility is the observer's first sight minus the writer's acknowledgement, both
// moved onto Cassandra's clock by the offset each side measured against it (writer.ClockOffset),
// so that two machines' clocks do not add their skew to the figure. What it cannot know is
// stated as a bound (Result.Bound): the key became visible after the last read that missed it
// and before the read that found it, and each offset is known within its own error.
//
// Keys not seen within Limit of their acknowledgement are censored: counted, and kept out of
// the distribution, whose percentiles would otherwise say a lag that was never observed.
package replag

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/writer"
)

// Config is one observer.
type Config struct {
	// Session reads the observed datacenter: its local datacenter is that one.
	Session *gocql.Session
	// Query selects the row of one key by the values a Key carries, e.g.
	// "SELECT k FROM ks.t WHERE k = ? LIMIT 1". It is read at LOCAL_ONE.
	Query string
	// Poll is the pause between two reads of one key; Limit how long after its
	// acknowledgement a key is read before it counts as censored; Timeout bounds one read.
	Poll, Limit, Timeout time.Duration
	// Readers is how many reads are in flight at once (1 when zero).
	Readers int
	// MaxPending bounds the keys waiting at once; keys beyond it are dropped and counted
	// (Result.Dropped), so that a lagging datacenter cannot grow the observer without bound.
	MaxPending int
	// Clock is the observer's clock against Cassandra's.
	Clock writer.ClockOffset
	// Now is the observer's clock; time.Now when nil.
	Now func() time.Time
}

// Key is one sampled write.
type Key struct {
	// Values bind Config.Query.
	Values []any
	// Acked is when the writer had the acknowledgement, on the writer's clock; Clock is the
	// writer's clock against Cassandra's.
	Acked time.Time
	Clock writer.ClockOffset
}

// Result is what an observer saw.
type Result struct {
	// Seen keys were read back within Limit; Lag holds their time to visibility in
	// microseconds. Censored keys were not; Dropped were never read (MaxPending).
	Seen, Censored, Dropped int64
	Lag                     *sketch.Sketch
	// ReadErrors are reads that failed (a down replica, a timeout); the key was read again.
	ReadErrors int64
	// MaxGapMicros is the longest pause between the last read that missed a key it then saw
	// and the read that found it: the figure may be that much later than the visibility.
	MaxGapMicros int64
	// ClockErrorMicros is the largest sum of the writer's and the observer's offset errors:
	// either way, each figure may be off by that much.
	ClockErrorMicros int64
}

// Bound is how far a figure can be from the true time to visibility, in microseconds: up to
// MaxGapMicros + ClockErrorMicros above it, up to ClockErrorMicros below.
func (r Result) Bound() int64 { return r.MaxGapMicros + r.ClockErrorMicros }

// Lag is a key's time to visibility: the observer's sight minus the writer's
// acknowledgement, each corrected to Cassandra's clock (offset: own clock minus Cassandra's),
// and never below zero, which only the offsets' errors can produce.
func Lag(acked time.Time, writerClock writer.ClockOffset, seen time.Time, observerClock writer.ClockOffset) time.Duration {
	d := seen.Add(-observerClock.Offset).Sub(acked.Add(-writerClock.Offset))
	return max(d, 0)
}

// pending is a key waiting to be seen.
type pending struct {
	Key
	due      time.Time // next read, observer's clock
	deadline time.Time // censored after this, observer's clock
	// lastMiss is the send time of the last read that missed the key, or its acknowledgement
	// (observer's clock) before the first: the key became visible after it.
	lastMiss time.Time
	// failed counts the reads of the key that failed in a row since the last that answered.
	failed int
}

// maxErrorPause bounds the pause after failed reads of a key: each failure doubles it from
// Poll, so an unreachable datacenter is asked a few times a second per key, not every Poll
// (a node down for 3 s drew 188 failed reads per key at a 10 ms poll). A key seen after
// failures may be seen that much later than it became visible: the gap is in MaxGapMicros
// and so in the bound.
const maxErrorPause = time.Second

// pause is how long to wait before reading p again.
func (o *Observer) pause(p *pending) time.Duration {
	d := o.cfg.Poll
	for i := 0; i < p.failed && d < maxErrorPause; i++ {
		d *= 2
	}
	return min(d, max(maxErrorPause, o.cfg.Poll))
}

type queue []*pending

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(*pending)) }
func (q *queue) Pop() any {
	old := *q
	p := old[len(old)-1]
	*q = old[:len(old)-1]
	return p
}

// Observer reads back the keys it is given until each is seen or censored.
type Observer struct {
	cfg Config
	mu  sync.Mutex
	// fresh keys have not been read yet and go first, oldest first: a backlog of keys read
	// again must not delay first reads, which would add the backlog to every figure.
	fresh   []*pending
	q       queue // keys read and missed, by when they are due again
	reading int   // keys taken from fresh or q and being read
	res     Result
	closing bool
	wake    chan struct{}
	wg      sync.WaitGroup
	stop    context.CancelFunc
	dropped atomic.Int64
}

// ErrConfig is returned by Start for a config that cannot observe anything.
var ErrConfig = errors.New("replag: a session, a query, and a positive poll interval and limit are needed")

// Start starts the observer's readers; Finish ends them.
func Start(ctx context.Context, cfg Config) (*Observer, error) {
	if cfg.Session == nil || cfg.Query == "" || cfg.Poll <= 0 || cfg.Limit <= 0 {
		return nil, ErrConfig
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 10000
	}
	ctx, stop := context.WithCancel(ctx)
	o := &Observer{cfg: cfg, wake: make(chan struct{}, 1), stop: stop}
	o.res.Lag = sketch.New()
	for range max(cfg.Readers, 1) {
		o.wg.Go(func() { o.read(ctx) })
	}
	return o, nil
}

// Expect hands the observer one acknowledged write. It never blocks: a key beyond
// MaxPending is dropped and counted.
func (o *Observer) Expect(k Key) {
	now := o.cfg.Now()
	o.mu.Lock()
	if o.closing || len(o.fresh)+len(o.q) >= o.cfg.MaxPending {
		o.mu.Unlock()
		o.dropped.Add(1)
		return
	}
	// The limit runs from the acknowledgement, moved onto the observer's clock.
	ackHere := k.Acked.Add(-k.Clock.Offset).Add(o.cfg.Clock.Offset)
	o.fresh = append(o.fresh, &pending{Key: k, due: now, deadline: ackHere.Add(o.cfg.Limit), lastMiss: ackHere})
	if e := int64((k.Clock.Error + o.cfg.Clock.Error) / time.Microsecond); e > o.res.ClockErrorMicros {
		o.res.ClockErrorMicros = e
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Finish takes no more keys, waits until every key taken is seen or censored (at most
// Limit), and returns what was observed. A cancelled ctx censors what is still waiting.
func (o *Observer) Finish(ctx context.Context) Result {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	for {
		o.mu.Lock()
		left := len(o.fresh) + len(o.q) + o.reading
		o.mu.Unlock()
		if left == 0 || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(o.cfg.Poll):
		}
	}
	o.stop()
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.res.Censored += int64(len(o.fresh) + len(o.q))
	o.fresh, o.q = nil, nil
	o.res.Dropped = o.dropped.Load()
	return o.res
}

// read is one reader: it reads the key due first, when it is due.
func (o *Observer) read(ctx context.Context) {
	for ctx.Err() == nil {
		p, wait := o.next()
		if p == nil {
			select {
			case <-ctx.Done():
			case <-o.wake:
			case <-time.After(wait):
			}
			continue
		}
		o.check(ctx, p)
	}
}

// next takes the oldest fresh key, else the key due again first if it is due, or says how
// long until one is (a poll when none waits).
func (o *Observer) next() (*pending, time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.fresh) > 0 {
		p := o.fresh[0]
		o.fresh[0] = nil
		o.fresh = o.fresh[1:]
		o.reading++
		return p, 0
	}
	if len(o.q) == 0 {
		return nil, o.cfg.Poll
	}
	if wait := o.q[0].due.Sub(o.cfg.Now()); wait > 0 {
		return nil, wait
	}
	o.reading++
	return heap.Pop(&o.q).(*pending), 0
}

// check reads one key once and records it as seen, censored, or due again after Poll (longer
// after failed reads).
func (o *Observer) check(ctx context.Context, p *pending) {
	rctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	sent := o.cfg.Now()
	iter := o.cfg.Session.Query(o.cfg.Query, p.Values...).Consistency(gocql.LocalOne).IterContext(rctx)
	found := iter.NumRows() > 0
	err := iter.Close()
	cancel()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reading--
	switch {
	case err == nil && found:
		o.res.Seen++
		o.res.Lag.Add(float64(Lag(p.Acked, p.Clock, sent, o.cfg.Clock) / time.Microsecond))
		o.res.MaxGapMicros = max(o.res.MaxGapMicros, int64(sent.Sub(p.lastMiss)/time.Microsecond))
		return
	case ctx.Err() != nil:
		o.res.Censored++ // the observer stopped before it could tell
		return
	case err != nil:
		o.res.ReadErrors++
		p.failed++
	default:
		p.failed = 0
	}
	p.lastMiss = sent
	now := o.cfg.Now()
	if now.After(p.deadline) {
		o.res.Censored++
		return
	}
	p.due = now.Add(o.pause(p))
	heap.Push(&o.q, p)
}
