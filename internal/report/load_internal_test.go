package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestLoadLines(t *testing.T) {
	for name, tc := range map[string]struct {
		verify bool
		res    cbv1.Results
		want   string
	}{
		"neither": {res: cbv1.Results{Reads: &cbv1.OperationResults{Rows: 10}}},
		"load stage and verified reads": {
			verify: true,
			res: cbv1.Results{
				Load:  &cbv1.LoadResults{Rows: 100000, RowsWanted: 100000, Millis: 18918, RowsPerSecond: 5286, Bytes: 1600000},
				Reads: &cbv1.OperationResults{Rows: 4000},
			},
			want: "load stage (not in the window): 100000 of 100000 rows in 18.918s, 5286 rows/s, 0 failed, value bytes 1600000\n" +
				"reads verified: 0 of 4000 rows returned differ from what was written\n",
		},
		"mismatches": {
			verify: true,
			res:    cbv1.Results{Reads: &cbv1.OperationResults{Rows: 2000, Mismatches: 1036}},
			want:   "reads verified: 1036 of 2000 rows returned differ from what was written\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			run := &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{Results: &tc.res}}
			run.Spec.Workload.VerifyReads = tc.verify
			var out strings.Builder
			loadLines(&errWriter{w: &out}, run)
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
