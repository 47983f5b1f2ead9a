package datacenter

import (
	"sort"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Allows tells whether the datacenter opted in to runs from the given namespace, and if not,
// a sentence saying what the datacenter's owner must do.
func Allows(dc *cassdcapi.CassandraDatacenter, runNamespace string) (bool, string, string) {
	value, ok := dc.Annotations[cbv1.AllowBenchmarksAnnotation]
	if !ok {
		return false, cbv1.ReasonNotAllowed, "CassandraDatacenter " + dc.Namespace + "/" + dc.Name +
			" has not opted in to benchmarks: annotate it with " + cbv1.AllowBenchmarksAnnotation + `="true"`
	}
	value = strings.TrimSpace(value)
	if strings.EqualFold(value, "true") {
		if runNamespace == dc.Namespace {
			return true, "", ""
		}
	} else if strings.EqualFold(value, "false") || value == "" {
		return false, cbv1.ReasonNotAllowed, "CassandraDatacenter " + dc.Namespace + "/" + dc.Name +
			" has " + cbv1.AllowBenchmarksAnnotation + `="` + value + `"; set it to "true" to allow benchmarks`
	} else {
		for _, ns := range strings.Split(value, ",") {
			ns = strings.TrimSpace(ns)
			if ns == "*" || ns == runNamespace {
				return true, "", ""
			}
		}
	}
	return false, cbv1.ReasonNamespaceNotAllowed, "CassandraDatacenter " + dc.Namespace + "/" + dc.Name +
		" does not allow runs from namespace " + runNamespace + ": add it to the " +
		cbv1.AllowBenchmarksAnnotation + " annotation as a comma-separated list (e.g. \"" + dc.Namespace + "," + runNamespace + "\")"
}

// Holder is who holds a datacenter's lock: a run, or a sweep with restore atEnd that lends
// the datacenter to its own runs.
type Holder struct {
	types.NamespacedName
	Sweep bool
}

// RunHolder and SweepHolder name a lock holder.
func RunHolder(run types.NamespacedName) Holder { return Holder{NamespacedName: run} }
func SweepHolder(sweep types.NamespacedName) Holder {
	return Holder{NamespacedName: sweep, Sweep: true}
}

// String names the holder's kind and key, for messages.
func (h Holder) String() string {
	if h.Sweep {
		return "BenchmarkSweep " + h.NamespacedName.String()
	}
	return "BenchmarkRun " + h.NamespacedName.String()
}

// sweepLockPrefix marks a sweep's lock: "sweep:namespace/name". Names and namespaces cannot
// hold a colon, so a run's lock ("namespace/name") never reads as a sweep's.
const sweepLockPrefix = "sweep:"

// LockHolder returns the run or sweep named in the datacenter's lock annotation, if any.
func LockHolder(dc *cassdcapi.CassandraDatacenter) (Holder, bool) {
	v := dc.Annotations[cbv1.LockAnnotation]
	if v == "" {
		return Holder{}, false
	}
	v, sweep := strings.CutPrefix(v, sweepLockPrefix)
	ns, name, ok := strings.Cut(v, "/")
	if !ok {
		return Holder{NamespacedName: types.NamespacedName{Name: v}, Sweep: sweep}, true
	}
	return Holder{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}, Sweep: sweep}, true
}

// LockValue is the lock annotation's value for a holder.
func LockValue(h Holder) string {
	v := h.Namespace + "/" + h.Name
	if h.Sweep {
		return sweepLockPrefix + v
	}
	return v
}

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
	ns := run.Spec.DatacenterRef.Namespace
	if ns == "" {
		ns = run.Namespace
	}
	return types.NamespacedName{Namespace: ns, Name: run.Spec.DatacenterRef.Name}
}
