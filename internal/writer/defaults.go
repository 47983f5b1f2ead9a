package writer

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// ApplyDefaults fills in what the CRD's +kubebuilder:default markers would: outside
// Kubernetes no API server does it. has says whether a field was written in the spec, for
// workload.writeRatio, whose zero value is a valid choice; with a nil has, writeRatio
// defaults when the mix is empty.
func ApplyDefaults(s *cbv1.BenchmarkRunSpec, has func(section, field string) bool) {
	if has == nil {
		has = func(section, field string) bool {
			return s.Workload.WriteRatio != 0 || s.Workload.ReadRatio != 0
		}
	}
	sc := &s.Schema
	if sc.Keyspace == "" {
		sc.Keyspace = "cassbench"
	}
	if sc.Replication.Strategy == "" {
		sc.Replication.Strategy = cbv1.SimpleStrategy
	}
	if sc.Replication.Factor == 0 {
		sc.Replication.Factor = 1
	}
	if sc.DurableWrites == nil {
		t := true
		sc.DurableWrites = &t
	}
	if sc.Table.Profile == "" && sc.Table.CQL == "" {
		sc.Table.Profile = cbv1.ProfileKeyValue
	}
	for i := range sc.Indexes {
		if sc.Indexes[i].Kind == "" {
			sc.Indexes[i].Kind = "secondary"
		}
	}
	w := &s.Workload
	if !has("workload", "writeRatio") {
		w.WriteRatio = 1
	}
	setIfEmpty(&w.WriteConsistency, "LOCAL_ONE")
	setIfEmpty(&w.ReadConsistency, "LOCAL_ONE")
	setIfEmpty(&w.ReadPath, cbv1.ReadPartition)
	setIfEmpty(&w.KeyDistribution, cbv1.DistributionUniform)
	setIfEmpty(&w.BatchType, "unlogged")
	if w.RowsPerPartition == 0 {
		w.RowsPerPartition = 1
	}
	if w.BatchSize == 0 {
		w.BatchSize = 1
	}
	wr := &s.Writers
	if wr.Concurrency == 0 {
		wr.Concurrency = 32
	}
	if wr.Warmup == nil {
		wr.Warmup = &metav1.Duration{}
	}
	if wr.RequestTimeout == nil {
		wr.RequestTimeout = &metav1.Duration{Duration: 10 * time.Second}
	}
	if wr.Retries == nil {
		three := int32(3)
		wr.Retries = &three
	}
	if wr.ConnectionsPerHost == 0 {
		wr.ConnectionsPerHost = 2
	}
}

func setIfEmpty[T ~string](p *T, v T) {
	if *p == "" {
		*p = v
	}
}
