package results

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// The writers' path counts add up into status.results.writePaths, and a run whose direct
// path left over 1% of its inserts to the driver says so first among its anomalies.
func TestMergeWritePaths(t *testing.T) {
	writer := func(i int32, p *summary.Paths) *summary.Summary {
		return &summary.Summary{Version: summary.Version, Index: i, Writers: 2, Start: 1000, End: 2000,
			Writes: &summary.Ops{OK: 10, Response: sketchOf([]float64{1000}), Service: sketchOf([]float64{900})}, Paths: p}
	}
	tests := map[string]struct {
		paths   []*summary.Paths
		want    *cbv1.WritePathResults
		anomaly string // in the first anomaly; "" for none
	}{
		"no counts reported": {paths: []*summary.Paths{nil, nil}},
		"every insert direct": {
			paths: []*summary.Paths{{Direct: 5000, Driver: 300}, {Direct: 5000, Driver: 200}},
			want:  &cbv1.WritePathResults{Direct: 10000, Driver: 500, FallbackRatio: "0"},
		},
		"1% fell back: not worth a sentence": {
			paths: []*summary.Paths{{Direct: 9900, Driver: 100, Dial: 100}, nil},
			want:  &cbv1.WritePathResults{Direct: 9900, Driver: 100, Fallbacks: cbv1.FallbackCounts{DialError: 100}, FallbackRatio: "0.01"},
		},
		"over 1% fell back": {
			paths: []*summary.Paths{{Direct: 900, Driver: 60, NoRoute: 10, Handshake: 20}, {Direct: 100, Driver: 40, Auth: 30, Streams: 10}},
			want: &cbv1.WritePathResults{Direct: 1000, Driver: 100,
				Fallbacks:     cbv1.FallbackCounts{NoRoute: 10, Handshake: 20, AuthChallenge: 30, StreamsExhausted: 10},
				FallbackRatio: "0.065421"},
			anomaly: "left 70 of 1070 inserts (6.5%) to the driver, which measured them (no route 10, handshake 20, auth challenge 30, streams exhausted 10)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var sums []*summary.Summary
			for i, p := range tc.paths {
				sums = append(sums, writer(int32(i), p))
			}
			r := Merge(sums)
			if diff := cmp.Diff(tc.want, r.WritePaths); diff != "" {
				t.Errorf("writePaths (-want +got):\n%s", diff)
			}
			var anomalies []string
			if r.Server != nil {
				anomalies = r.Server.Anomalies
			}
			switch {
			case tc.anomaly == "" && len(anomalies) > 0:
				t.Errorf("anomalies %q, want none", anomalies)
			case tc.anomaly != "" && (len(anomalies) == 0 || !strings.Contains(anomalies[0], tc.anomaly)):
				t.Errorf("anomalies %q, want first one saying %q", anomalies, tc.anomaly)
			}
		})
	}
}
