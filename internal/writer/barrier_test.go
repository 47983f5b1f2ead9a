package writer

import (
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/go-cmp/cmp"
)

func TestCommonStart(t *testing.T) {
	base := time.UnixMilli(1700000000000)
	at := func(ms int64) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	tests := map[string]struct {
		latest, decided, want time.Time
	}{
		"decided by the last writer":     {latest: at(1500), decided: at(1503), want: at(3503)},
		"decided by a waiter, later":     {latest: at(1500), decided: at(61500), want: at(63500)},
		"decision clock behind the last": {latest: at(1500), decided: at(1400), want: at(3500)},
		"sub-millisecond":                {latest: at(10).Add(700 * time.Microsecond), want: at(2010)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := CommonStart(tc.latest, tc.decided); !got.Equal(tc.want) {
				t.Errorf("CommonStart = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestLatestOf(t *testing.T) {
	base := time.UnixMilli(1700000000000)
	at := func(ms int64) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	type result struct {
		Latest   time.Time
		Complete bool
	}
	tests := map[string]struct {
		ats  []time.Time
		want int32
		res  result
	}{
		"all here":        {ats: []time.Time{at(0), at(1500), at(300)}, want: 3, res: result{at(1500), true}},
		"any order":       {ats: []time.Time{at(1500), at(300), at(0)}, want: 3, res: result{at(1500), true}},
		"one missing":     {ats: []time.Time{at(0), at(1500)}, want: 3, res: result{at(1500), false}},
		"none":            {want: 1},
		"no members":      {want: 0},
		"stale extra row": {ats: []time.Time{at(0), at(9000), at(10)}, want: 2, res: result{at(9000), true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got result
			got.Latest, got.Complete = latestOf(tc.ats, tc.want)
			if diff := cmp.Diff(tc.res, got); diff != "" {
				t.Errorf("latestOf (-want +got):\n%s", diff)
			}
		})
	}
}

// Every writer must be in exactly one group, and the groups must be small both ways: no
// writer reads more than about 2√N rows to count its arrival.
func TestGroups(t *testing.T) {
	tests := map[string]struct {
		writers       int32
		size, count   int32
		lastMembers   int32
		rowsPerWriter int32
	}{
		"one":      {writers: 1, size: 1, count: 1, lastMembers: 1, rowsPerWriter: 2},
		"three":    {writers: 3, size: 2, count: 2, lastMembers: 1, rowsPerWriter: 4},
		"hundred":  {writers: 100, size: 10, count: 10, lastMembers: 10, rowsPerWriter: 20},
		"thousand": {writers: 1000, size: 32, count: 32, lastMembers: 8, rowsPerWriter: 64},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			size, count := groupSize(tc.writers), groupCount(tc.writers)
			got := []int32{size, count, groupMembers(count-1, tc.writers), size + count}
			if diff := cmp.Diff([]int32{tc.size, tc.count, tc.lastMembers, tc.rowsPerWriter}, got); diff != "" {
				t.Errorf("size, count, last group's members, rows a writer reads (-want +got):\n%s", diff)
			}
			var members int32
			for g := range count {
				members += groupMembers(g, tc.writers)
			}
			if members != tc.writers || groupMembers(count, tc.writers) != 0 {
				t.Errorf("groups hold %d writers of %d, and a group past the last holds %d", members, tc.writers, groupMembers(count, tc.writers))
			}
			for i := range tc.writers {
				if g := i / size; g >= count {
					t.Fatalf("writer %d is in group %d of %d", i, g, count)
				}
			}
		})
	}
}

func TestNextDeadline(t *testing.T) {
	base := time.UnixMilli(1700000000000)
	at := func(s float64) time.Time { return base.Add(time.Duration(s * float64(time.Second))) }
	const timeout, poll = 10 * time.Second, 250 * time.Millisecond
	tests := map[string]struct {
		t          tally
		seenBefore int32
		offset     time.Duration
		now        time.Time
		want       time.Time
	}{
		"no new writer: give up":         {t: tally{seen: 4, latest: at(1)}, seenBefore: 4, now: at(10), want: at(10)},
		"a new writer: wait from it":     {t: tally{seen: 5, latest: at(7)}, seenBefore: 4, now: at(10), want: at(17)},
		"on this writer's clock":         {t: tally{seen: 5, latest: at(7)}, seenBefore: 4, offset: 2 * time.Second, now: at(10), want: at(19)},
		"first count, long ago: recount": {t: tally{seen: 1, latest: at(0)}, now: at(10), want: at(10.25)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// The deadline passed in is the one that fell due now.
			got := nextDeadline(tc.t, tc.seenBefore, tc.now, tc.now, tc.offset, timeout, poll)
			if !got.Equal(tc.want) {
				t.Errorf("nextDeadline = %s, want %s", got.Sub(base), tc.want.Sub(base))
			}
		})
	}
}

func TestJittered(t *testing.T) {
	const poll = 250 * time.Millisecond
	lo, hi := poll, time.Duration(0)
	for range 1000 {
		d := jittered(poll)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < poll/2 || hi >= 3*poll/2 || hi-lo < poll/2 {
		t.Errorf("1,000 polls spread over [%s, %s], want within [125ms, 375ms) and spread", lo, hi)
	}
}

func TestBarrierConsistency(t *testing.T) {
	tests := map[string]struct {
		rf   int32
		want gocql.Consistency
	}{
		"rf 1": {rf: 1, want: gocql.One},
		"rf 2": {rf: 2, want: gocql.Quorum},
		"rf 3": {rf: 3, want: gocql.Quorum},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := BarrierConsistency(tc.rf); got != tc.want {
				t.Errorf("BarrierConsistency(%d) = %s, want %s", tc.rf, got, tc.want)
			}
		})
	}
}
