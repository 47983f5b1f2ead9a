package podenv

import (
	"strconv"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// ObservedDatacenter is the datacenter of a run across several whose replication lag writer
// index observes: the first of spec.datacenters with observers that is not the writer's own.
// ok is false when the writer observes none (no datacenter has observers, or only its own).
func ObservedDatacenter(dcs []cbv1.RunDatacenter, index int) (name string, ok bool) {
	own, placed := WriterDatacenter(dcs, index)
	if !placed {
		return "", false
	}
	for _, d := range dcs {
		if d.Observers > 0 && d.Name != own {
			return d.Name, true
		}
	}
	return "", false
}

// ObserverReaders is how many reads each writer's observer of datacenter name keeps in
// flight: ReadersPerObserver for each of spec.datacenters[].observers there.
func ObserverReaders(dcs []cbv1.RunDatacenter, name string) int {
	for _, d := range dcs {
		if d.Name == name {
			return max(int(d.Observers), 1) * ReadersPerObserver
		}
	}
	return ReadersPerObserver
}

// ReadersPerObserver is the reads in flight of one observer, as cassbench run
// --observe-datacenter has them.
const ReadersPerObserver = 4

// The defaults of spec.replicationLag, which the CRD fills in; a spec that was not admitted
// (cassbench writer -f) may lack them.
const (
	DefaultLagSample = 0.01
	DefaultLagLimit  = 30 * time.Second
	DefaultLagPoll   = 10 * time.Millisecond
)

// LagSettings are spec.replicationLag's share of inserts read back, limit and poll, with the
// defaults for what it leaves out.
func LagSettings(spec *cbv1.BenchmarkRunSpec) (sample float64, limit, poll time.Duration) {
	sample, limit, poll = DefaultLagSample, DefaultLagLimit, DefaultLagPoll
	l := spec.ReplicationLag
	if l == nil {
		return sample, limit, poll
	}
	if v, err := strconv.ParseFloat(l.SampleShare, 64); err == nil && v > 0 && v <= 1 {
		sample = v
	}
	if l.Limit != nil && l.Limit.Duration > 0 {
		limit = l.Limit.Duration
	}
	if l.Poll != nil && l.Poll.Duration > 0 {
		poll = l.Poll.Duration
	}
	return sample, limit, poll
}
