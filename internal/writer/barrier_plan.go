package writer

import (
	"fmt"
	"math"
	"time"
)

// The barrier's rows, all in BarrierTable, keyed by partitions named after the barrier's run:
//
//	<run>/g<k>     one row per writer of group k: its arrival (writer = index)
//	<run>/groups   one row per complete group: its latest arrival (writer = k)
//	<run>/go       one row, written once: the common start (writer = 0)
//
// Writers meet in groups of about √N so that no writer reads more than about 2√N rows to
// learn whether it completed the barrier, and waiters poll the single go row. The barrier
// that every waiter polled whole (N rows every 250 ms each, N² rows a poll round) made the
// last of 1,000 writers learn the start seconds after it.

// groupSize is how many writers share an arrival partition: ⌈√writers⌉, which balances the
// rows a writer reads in its group against those it reads in the groups partition.
func groupSize(writers int32) int32 {
	return max(int32(math.Ceil(math.Sqrt(float64(writers)))), 1)
}

// groupCount is how many groups writers of a run form.
func groupCount(writers int32) int32 {
	size := groupSize(writers)
	return (max(writers, 1) + size - 1) / size
}

// groupMembers is how many writers group g holds: the last group may hold fewer.
func groupMembers(g, writers int32) int32 {
	size := groupSize(writers)
	return max(min(size, writers-g*size), 0)
}

func groupKey(run string, g int32) string { return fmt.Sprintf("%s/g%d", run, g) }
func groupsKey(run string) string         { return run + "/groups" }
func goKey(run string) string             { return run + "/go" }

// latestOf returns the latest of ats and whether there are at least want of them. A group
// may hold more rows than members only if its writers' count changed under the same run,
// which no run does; more is still complete.
func latestOf(ats []time.Time, want int32) (time.Time, bool) {
	var latest time.Time
	for _, at := range ats {
		if at.After(latest) {
			latest = at
		}
	}
	return latest, int32(len(ats)) >= want && len(ats) > 0
}

// CommonStart is the start the deciding writer records for everyone: startLead after the
// later of the last arrival and the decision (they differ when a waiter decides, in place of
// a last writer that stopped between arriving and deciding), so that every waiter's next
// poll finds it before it comes. Cassandra keeps timestamps to the millisecond; so does the
// computation.
func CommonStart(latest, decided time.Time) time.Time {
	if decided.After(latest) {
		latest = decided
	}
	return latest.Truncate(time.Millisecond).Add(startLead)
}

// tally is what a recount of the barrier found.
type tally struct {
	seen     int32
	latest   time.Time
	complete bool
}

// add counts n arrivals of one group, the latest at latest.
func (t *tally) add(n int32, latest time.Time) {
	t.seen += n
	if latest.After(t.latest) {
		t.latest = latest
	}
}

// nextDeadline is when a waiter gives up if the barrier is still incomplete: Timeout after
// the latest arrival, on this writer's clock (arrivals are kept in Cassandra's, offset from
// it), and never sooner than the next poll when the recount found more writers than before.
// With no new writer, the deadline stays: the waiter gives up.
func nextDeadline(t tally, seenBefore int32, deadline, now time.Time, offset, timeout, poll time.Duration) time.Time {
	if t.seen <= seenBefore {
		return deadline
	}
	next := t.latest.Add(offset).Add(timeout)
	if floor := now.Add(poll); next.Before(floor) {
		return floor
	}
	return next
}
