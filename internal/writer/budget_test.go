package writer

import "testing"

func TestBudget(t *testing.T) {
	tests := map[string]struct {
		max         int32
		ops, failed int64
		want        bool
	}{
		"unset never aborts":       {max: 0, ops: 10000, failed: 10000, want: false},
		"too few operations":       {max: 1, ops: 999, failed: 999, want: false},
		"at the share":             {max: 5, ops: 1000, failed: 50, want: false},
		"just over the share":      {max: 5, ops: 1000, failed: 51, want: true},
		"all failed":               {max: 100, ops: 5000, failed: 5000, want: false},
		"one percent of a million": {max: 1, ops: 1_000_000, failed: 10_001, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := (Budget{MaxPercent: tc.max}).Exceeded(tc.ops, tc.failed); got != tc.want {
				t.Errorf("Exceeded(%d, %d) with %d%% = %t, want %t", tc.ops, tc.failed, tc.max, got, tc.want)
			}
		})
	}
}
