package report

import (
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// The results table says which path carried the writes, and why any insert left the direct
// path; a run without the counts (results from before them) prints no such line.
func TestWritePathsLine(t *testing.T) {
	tests := map[string]struct {
		paths *cbv1.WritePathResults
		want  string
	}{
		"without counts": {},
		"with fallbacks": {
			paths: &cbv1.WritePathResults{Direct: 990, Driver: 30, FallbackRatio: "0.0198", Fallbacks: cbv1.FallbackCounts{DialError: 15, StreamsExhausted: 5}},
			want:  "write requests: 990 direct, 30 through the driver; inserts the direct path left to the driver: 0.0198 (no route 0, dial error 15, handshake 0, auth challenge 0, streams exhausted 5)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			failureLines(&errWriter{w: &b}, &cbv1.Results{WritePaths: tc.paths})
			got := b.String()
			if tc.want == "" && strings.Contains(got, "write requests") || tc.want != "" && !strings.Contains(got, tc.want+"\n") {
				t.Errorf("table:\n%s\nwant a line %q", got, tc.want)
			}
		})
	}
}
