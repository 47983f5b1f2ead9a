package replag

import (
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
)

// Summary is what an observer of datacenter dc saw, as a writer's summary carries it.
func (r Result) Summary(dc string) *summary.Replag {
	return &summary.Replag{
		Datacenter: dc, Seen: r.Seen, Censored: r.Censored, Dropped: r.Dropped, ReadErrors: r.ReadErrors,
		MaxGapMicros: r.MaxGapMicros, ClockErrorMicros: r.ClockErrorMicros, Lag: r.Lag,
	}
}

// Results is what an observer of datacenter dc saw, as the run's results keep it: sample is
// the share of inserts it was given and limit how long it looked for each. It is the merge
// of one writer's (results.ReplicationLag), so a local run and a run in Kubernetes state the
// same figures the same way.
func (r Result) Results(dc string, sample float64, limit time.Duration) *cbv1.ReplicationLagResults {
	return results.ReplicationLag([]*summary.Summary{{Replag: r.Summary(dc)}}, sample, limit)
}
