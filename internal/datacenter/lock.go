package datacenter

import (
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

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
