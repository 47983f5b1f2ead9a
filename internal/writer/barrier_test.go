package writer

import (
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

func TestCommonStart(t *testing.T) {
	base := time.UnixMilli(1700000000000)
	at := func(ms int64) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	tests := map[string]struct {
		arrivals []time.Time
		writers  int32
		want     time.Time
		ok       bool
	}{
		"all here":        {arrivals: []time.Time{at(0), at(1500), at(300)}, writers: 3, want: at(3500), ok: true},
		"one missing":     {arrivals: []time.Time{at(0), at(1500)}, writers: 3},
		"none":            {writers: 1},
		"single writer":   {arrivals: []time.Time{at(42)}, writers: 1, want: at(2042), ok: true},
		"sub-millisecond": {arrivals: []time.Time{at(10).Add(700 * time.Microsecond)}, writers: 1, want: at(2010), ok: true},
		"stale extra row": {arrivals: []time.Time{at(0), at(9000), at(10)}, writers: 2, want: at(11000), ok: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := CommonStart(tc.arrivals, tc.writers)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("CommonStart = %s, %t; want %s, %t", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// Every writer must compute the same start whatever order it reads the rows in.
func TestCommonStartOrderIndependent(t *testing.T) {
	a := []time.Time{time.UnixMilli(5), time.UnixMilli(900), time.UnixMilli(17)}
	b := []time.Time{a[2], a[0], a[1]}
	sa, _ := CommonStart(a, 3)
	sb, _ := CommonStart(b, 3)
	if !sa.Equal(sb) {
		t.Errorf("start depends on order: %s vs %s", sa, sb)
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
