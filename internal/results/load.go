package results

import (
	"math"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
)

// mergeLoad adds up the writers' load stages: nil when none loaded. The writers load side by
// side from the same start, so the stage took as long as the slowest of them.
func mergeLoad(reported []*summary.Summary) *cbv1.LoadResults {
	var out *cbv1.LoadResults
	for _, s := range reported {
		l := s.Load
		if l == nil {
			continue
		}
		if out == nil {
			out = &cbv1.LoadResults{}
		}
		out.Rows += l.Rows
		out.RowsWanted += l.Wanted
		out.Failed += l.Failed
		out.Bytes += l.Bytes
		out.Millis = max(out.Millis, l.Millis)
	}
	if out != nil && out.Millis > 0 {
		out.RowsPerSecond = int64(math.Round(float64(out.Rows) * 1000 / float64(out.Millis)))
	}
	return out
}
