package replag

import (
	"strconv"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
)

// Results is what an observer of datacenter dc saw, as the run's results keep it: sample is
// the share of inserts it was given and limit how long it looked for each.
func (r Result) Results(dc string, sample float64, limit time.Duration) *cbv1.ReplicationLagResults {
	out := &cbv1.ReplicationLagResults{
		ObservedDatacenter: dc,
		SampleShare:        strconv.FormatFloat(sample, 'g', -1, 64),
		LimitMillis:        limit.Milliseconds(),
		Seen:               r.Seen,
		Censored:           r.Censored,
		Dropped:            r.Dropped,
		ReadErrors:         r.ReadErrors,
	}
	if r.Lag != nil && r.Lag.Count() > 0 {
		l := results.Latency(r.Lag)
		out.Lag = &l
		out.BoundMicros, out.ClockErrorMicros = r.Bound(), r.ClockErrorMicros
	}
	return out
}
