package report

import (
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// loadLines prints the load stage, which the window's figures above leave out, and what the
// verification of reads found: with verifyReads on, no mismatch is a finding too.
func loadLines(w *errWriter, run *cbv1.BenchmarkRun) {
	r := run.Status.Results
	if l := r.Load; l != nil {
		w.printf("load stage (not in the window): %d of %d rows in %s, %d rows/s, %d failed, value bytes %d\n",
			l.Rows, l.RowsWanted, time.Duration(l.Millis)*time.Millisecond, l.RowsPerSecond, l.Failed, l.Bytes)
	}
	if run.Spec.Workload.VerifyReads && r.Reads != nil {
		w.printf("reads verified: %d of %d rows returned differ from what was written\n", r.Reads.Mismatches, r.Reads.Rows)
	}
}
