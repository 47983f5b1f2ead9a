package writer

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestShare(t *testing.T) {
	tests := map[string]struct {
		total   int64
		writers int32
		want    []int64
	}{
		"even":               {total: 300, writers: 3, want: []int64{100, 100, 100}},
		"remainder to first": {total: 1001, writers: 3, want: []int64{334, 334, 333}},
		"fewer than writers": {total: 2, writers: 4, want: []int64{1, 1, 0, 0}},
		"one writer":         {total: 7, writers: 1, want: []int64{7}},
		"large":              {total: 100_000_000, writers: 7, want: []int64{14285715, 14285715, 14285714, 14285714, 14285714, 14285714, 14285714}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []int64
			var sum int64
			for i := range tc.writers {
				s := Share(tc.total, tc.writers, i)
				got = append(got, s)
				sum += s
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("shares (-want +got):\n%s", diff)
			}
			if sum != tc.total {
				t.Errorf("shares add up to %d, want %d", sum, tc.total)
			}
		})
	}
}

func TestScheduleAt(t *testing.T) {
	start := time.Unix(1700000000, 0)
	tests := map[string]struct {
		rate int64
		k    []int64
		want []time.Duration
	}{
		"1000/s":          {rate: 1000, k: []int64{0, 1, 999, 1000, 1500}, want: []time.Duration{0, time.Millisecond, 999 * time.Millisecond, time.Second, 1500 * time.Millisecond}},
		"3/s rounds down": {rate: 3, k: []int64{1, 2, 3, 4}, want: []time.Duration{333333333, 666666666, time.Second, 1333333333}},
		"7/s":             {rate: 7, k: []int64{7_000_000_000}, want: []time.Duration{1_000_000_000 * time.Second}},
		"max rate far":    {rate: 100_000_000, k: []int64{1, 9_000_000_000_000}, want: []time.Duration{10, 90000 * time.Second}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := Schedule{Start: start, Rate: tc.rate}
			var got []time.Duration
			for _, k := range tc.k {
				got = append(got, s.At(k).Sub(start))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("offsets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScheduleCount(t *testing.T) {
	tests := map[string]struct {
		rate int64
		d    time.Duration
		want int64
	}{
		"whole seconds":    {rate: 1000, d: 5 * time.Second, want: 5000},
		"partial interval": {rate: 3, d: 400 * time.Millisecond, want: 2}, // due at 0 and 333ms
		"exact boundary":   {rate: 4, d: 500 * time.Millisecond, want: 2}, // 0, 250ms; 500ms is not before
		"zero":             {rate: 1000, d: 0, want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := Schedule{Start: time.Unix(0, 0), Rate: tc.rate}
			got := s.Count(tc.d)
			if got != tc.want {
				t.Errorf("Count(%s) = %d, want %d", tc.d, got, tc.want)
			}
			// Count and At must agree: the last counted one is due before d, the next is not.
			if got > 0 && !s.At(got-1).Before(s.Start.Add(tc.d)) {
				t.Errorf("operation %d is due at or after %s", got-1, tc.d)
			}
			if s.At(got).Before(s.Start.Add(tc.d)) {
				t.Errorf("operation %d is due before %s but not counted", got, tc.d)
			}
		})
	}
}

// The rates of all writers, like their operations, must add up to the spec's total.
func TestRateSplitAcrossWriters(t *testing.T) {
	const total, writers = 10007, 6
	var sum int64
	d := 3 * time.Second
	var ops int64
	for i := range int32(writers) {
		r := Share(total, writers, i)
		sum += r
		ops += Schedule{Rate: r}.Count(d)
	}
	if sum != total {
		t.Errorf("rates add up to %d, want %d", sum, total)
	}
	if ops != total*3 {
		t.Errorf("operations over %s add up to %d, want %d", d, ops, total*3)
	}
}
