package datacenter

import (
	"sort"

	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Queue orders the runs waiting for one datacenter: oldest first, then by namespace and name
// so that runs created in the same second still have one order everyone agrees on.
func Queue(runs []cbv1.BenchmarkRun) []cbv1.BenchmarkRun {
	out := append([]cbv1.BenchmarkRun(nil), runs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// Key is the namespaced name of the datacenter a run refers to.
func Key(run *cbv1.BenchmarkRun) types.NamespacedName {
	ref := run.Spec.DatacenterRef
	if ref == nil {
		// A run across several datacenters (spec.datacenters) has no one datacenter.
		return types.NamespacedName{Namespace: run.Namespace}
	}
	ns := ref.Namespace
	if ns == "" {
		ns = run.Namespace
	}
	return types.NamespacedName{Namespace: ns, Name: ref.Name}
}
