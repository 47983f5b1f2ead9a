package summary

import "github.com/cassbench/cassbench/internal/sketch"

// Replag is what a writer's replication-lag observer saw of the writer's own sampled inserts
// in the observed datacenter (internal/replag.Result, as the termination message carries it).
type Replag struct {
	// Datacenter is the observed one, as spec.datacenters names it.
	Datacenter string `json:"dc"`
	Seen       int64  `json:"seen,omitempty"`
	Censored   int64  `json:"cens,omitempty"`
	Dropped    int64  `json:"drop,omitempty"`
	ReadErrors int64  `json:"rerr,omitempty"`
	// MaxGapMicros and ClockErrorMicros make the bound of the figures (replag.Result.Bound).
	MaxGapMicros     int64 `json:"gap,omitempty"`
	ClockErrorMicros int64 `json:"clke,omitempty"`
	// Lag holds the seen keys' times to visibility, in microseconds.
	Lag *sketch.Sketch `json:"lag,omitempty"`
}

func (r *Replag) clone() *Replag {
	if r == nil {
		return nil
	}
	c := *r
	c.Lag = r.Lag.Clone()
	return &c
}
