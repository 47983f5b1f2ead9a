package sweep

import cbv1 "github.com/cassbench/cassbench/api/v1alpha1"

// LoadOnce adapts the spec of one run of a sweep with loadOnce: the first run (first point,
// first repeat) loads the template's dataset, and every later one measures it without
// dropping the keyspace. Without loadOnce, or without a dataset, the spec is left as it is.
func LoadOnce(sw *cbv1.BenchmarkSweep, spec *cbv1.BenchmarkRunSpec, point, repeat int) {
	d := spec.Workload.Dataset
	if !sw.Spec.LoadOnce || d == nil {
		return
	}
	if point == 0 && repeat == 0 {
		spec.Workload.Dataset = &cbv1.DatasetSpec{Rows: d.Rows, Load: true}
		return
	}
	spec.Workload.Dataset = &cbv1.DatasetSpec{Rows: d.Rows}
	spec.Schema.Recreate = false
}
