package sweep

import (
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestPointVerdict(t *testing.T) {
	res := func(v cbv1.BottleneckVerdict) *cbv1.Results {
		if v == "" {
			return &cbv1.Results{}
		}
		return &cbv1.Results{Bottleneck: &cbv1.Bottleneck{Verdict: v}}
	}
	tests := map[string]struct {
		runs []cbv1.BottleneckVerdict
		want cbv1.BottleneckVerdict
	}{
		"none":     {runs: []cbv1.BottleneckVerdict{"", ""}, want: ""},
		"agree":    {runs: []cbv1.BottleneckVerdict{cbv1.BottleneckWriters, "", cbv1.BottleneckWriters}, want: cbv1.BottleneckWriters},
		"disagree": {runs: []cbv1.BottleneckVerdict{cbv1.BottleneckWriters, cbv1.BottleneckCluster}, want: cbv1.BottleneckUnclear},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var rs []*cbv1.Results
			for _, v := range tc.runs {
				rs = append(rs, res(v))
			}
			if got := verdict(rs); got != tc.want {
				t.Errorf("verdict = %q, want %q", got, tc.want)
			}
		})
	}
}
