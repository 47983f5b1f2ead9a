package results

import (
	"strconv"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// ReplicationLag merges what the writers' replication-lag observers saw (summary.Replag)
// into one result: counts add up, the lag sketches merge, and the bound is the largest any
// observer states, as each figure may come from any of them. sample is the share of inserts
// read back and limit how long each was looked for; nil when no summary carries an observer's.
func ReplicationLag(summaries []*summary.Summary, sample float64, limit time.Duration) *cbv1.ReplicationLagResults {
	var out *cbv1.ReplicationLagResults
	var lag *sketch.Sketch
	var gap, clock int64
	for _, s := range summaries {
		if s == nil || s.Replag == nil {
			continue
		}
		r := s.Replag
		if out == nil {
			out = &cbv1.ReplicationLagResults{
				ObservedDatacenter: r.Datacenter,
				SampleShare:        strconv.FormatFloat(sample, 'g', -1, 64),
				LimitMillis:        limit.Milliseconds(),
			}
			lag = sketch.New()
		}
		out.Seen += r.Seen
		out.Censored += r.Censored
		out.Dropped += r.Dropped
		out.ReadErrors += r.ReadErrors
		gap, clock = max(gap, r.MaxGapMicros), max(clock, r.ClockErrorMicros)
		if r.Lag != nil {
			lag.Merge(r.Lag)
		}
	}
	if out != nil && lag.Count() > 0 {
		l := Latency(lag)
		out.Lag = &l
		out.BoundMicros, out.ClockErrorMicros = gap+clock, clock
	}
	return out
}
