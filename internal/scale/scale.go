// Package scale shrinks a run so that a sample written for a production cluster runs to
// completion on a laptop's local node(s) in seconds (`cassbench run --scale F`).
//
// What a factor F (0 < F <= 1) changes, and why:
//
//   - how much: writers.duration, writers.warmup, writers.operations, writers.rate,
//     workload.partitions and workload.rowsPerPartition are multiplied by F, with floors
//     that keep the run meaningful (MinDuration; at least one operation, partition and op/s
//     per writer; one row per partition).
//
//   - where: spec.datacenter is dropped: a local node cannot be resized or retuned, and the
//     sample's settings (heap, concurrent_writes...) are not what the local node runs, so
//     they are neither applied nor verified. The replication factor is capped at the nodes
//     up, and a consistency level that names more replicas than that (TWO, THREE) is lowered
//     to the most the keyspace can give, so that the workload can succeed at all.
//
//   - how fast: a writers.requestTimeout below MinRequestTimeout is raised to it. A local
//     node sharing a laptop's cores with the writers cannot keep a production deadline (seed
//     003's 10 ms), and a run whose every request times out shows nothing about the workload.
//
// What it keeps: the table, the operation mix, consistency levels the nodes can serve,
// value sizes, writer count and requests in flight (the load's shape), and the seed, so a
// scaled write run and a scaled read run of the same samples still meet on the same rows.
package scale

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// MinDuration is the shortest measured window a scaled run gets: a window of a few
// milliseconds would measure connection set-up, not the workload.
const MinDuration = 2 * time.Second

// MinRequestTimeout is the shortest request timeout a scaled run keeps: the driver's own
// default. Local nodes sharing two cores with a test suite answered at a p99 of 2 s, and a
// writer whose few operations all time out fails the run (measured in CI at 1 s).
const MinRequestTimeout = 10 * time.Second

// Spec returns a copy of spec scaled by factor for a cluster of nodes nodes, and one line per
// change for the user.
func Spec(spec *cbv1.BenchmarkRunSpec, factor float64, nodes int32) (*cbv1.BenchmarkRunSpec, []string, error) {
	if !(factor > 0 && factor <= 1) {
		return nil, nil, fmt.Errorf("scale factor %v is not in (0, 1]", factor)
	}
	if nodes < 1 {
		return nil, nil, fmt.Errorf("scaling for %d nodes: need at least one", nodes)
	}
	s := spec.DeepCopy()
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	w := &s.Writers
	replicas := int64(max(w.Replicas, 1))

	if s.Datacenter != nil {
		s.Datacenter = nil
		note("spec.datacenter dropped: a scaled run measures the workload on the nodes as they are, neither applying nor verifying the sample's size and settings")
	}
	if w.Duration != nil {
		d := max(time.Duration(float64(w.Duration.Duration)*factor).Round(time.Millisecond), MinDuration)
		note("writers.duration %s -> %s", w.Duration.Duration, d)
		w.Duration = &metav1.Duration{Duration: d}
	}
	if w.Warmup != nil && w.Warmup.Duration > 0 {
		d := time.Duration(float64(w.Warmup.Duration) * factor).Round(time.Millisecond)
		note("writers.warmup %s -> %s", w.Warmup.Duration, d)
		w.Warmup = &metav1.Duration{Duration: d}
	}
	if w.Operations != nil {
		n := scaled(*w.Operations, factor, replicas)
		note("writers.operations %d -> %d", *w.Operations, n)
		w.Operations = &n
	}
	if w.Rate != nil {
		n := scaled(*w.Rate, factor, replicas)
		note("writers.rate %d -> %d", *w.Rate, n)
		w.Rate = &n
	}
	if w.RequestTimeout != nil && w.RequestTimeout.Duration < MinRequestTimeout {
		note("writers.requestTimeout %s -> %s", w.RequestTimeout.Duration, MinRequestTimeout)
		w.RequestTimeout = &metav1.Duration{Duration: MinRequestTimeout}
	}
	wl := &s.Workload
	if wl.Partitions > 0 {
		n := scaled(wl.Partitions, factor, replicas)
		note("workload.partitions %d -> %d", wl.Partitions, n)
		wl.Partitions = n
	}
	if d := wl.Dataset; d != nil {
		// Not by writer count: a run measuring a dataset must ask for the rows that the run
		// which loaded it, scaled alike, loaded.
		n := scaled(d.Rows, factor, 1)
		note("workload.dataset.rows %d -> %d", d.Rows, n)
		wl.Dataset = &cbv1.DatasetSpec{Rows: n, Load: d.Load}
	}
	if wl.RowsPerPartition > 1 {
		n := int32(scaled(int64(wl.RowsPerPartition), factor, 1))
		note("workload.rowsPerPartition %d -> %d", wl.RowsPerPartition, n)
		wl.RowsPerPartition = n
	}

	rf := &s.Schema.Replication.Factor
	if *rf > nodes {
		note("schema.replication.factor %d -> %d (nodes up)", *rf, nodes)
		*rf = nodes
	}
	for _, cl := range []*cbv1.ConsistencyLevel{&wl.WriteConsistency, &wl.ReadConsistency} {
		if lowered, ok := fit(*cl, *rf); ok {
			note("consistency %s -> %s (replication factor %d)", *cl, lowered, *rf)
			*cl = lowered
		}
	}
	return s, notes, nil
}

// scaled is n*factor rounded, at least floor (and never above n).
func scaled(n int64, factor float64, floor int64) int64 {
	v := int64(math.Round(float64(n) * factor))
	return min(max(v, floor), max(n, floor))
}

// fit lowers a consistency level that names more replicas than rf has.
func fit(cl cbv1.ConsistencyLevel, rf int32) (cbv1.ConsistencyLevel, bool) {
	need := map[cbv1.ConsistencyLevel]int32{"TWO": 2, "THREE": 3}[cl]
	if need == 0 || need <= rf {
		return cl, false
	}
	return map[int32]cbv1.ConsistencyLevel{1: "ONE", 2: "TWO"}[rf], true
}
