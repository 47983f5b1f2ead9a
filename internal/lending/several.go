package lending

import (
	"fmt"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// A holder that needs several datacenters takes them through the same chain, one after the
// other, in the one order every holder uses (datacenter.Keys: namespace, then name), and asks
// for the next only once it holds every one before it. A holder therefore only ever waits for
// a datacenter that comes after every one it holds, so holders each waiting for a datacenter
// the next one holds climb the order and can never close into a cycle: two holders that need
// the same datacenters meet at the first they share, where one goes on and the other waits
// holding only datacenters the first does not need. The queue of a datacenter (TakeInput.Next)
// must count, for this to hold, only holders that hold every datacenter before it: an older
// holder still waiting for an earlier one must not be given the turn. A holder that stops, or
// is deleted, gives back exactly the datacenters whose lock is its own (HeldBy), each restored
// from the originals it recorded for that one, whether or not it changed the others.

// EvaluateInOrder runs the chain for each datacenter of a holder that needs several; ins must
// be in datacenter.Keys order. It returns the index and verdict of the first datacenter the
// holder does not yet hold with its originals recorded, or len(ins) and Held when it holds
// them all.
func (c Chain) EvaluateInOrder(ins []TakeInput) (int, Take) {
	for i := 1; i < len(ins); i++ {
		if !before(ins[i-1].Key, ins[i].Key) {
			return i, Take{Verdict: Refused, Reason: cbv1.ReasonInvalidSpec, Message: fmt.Sprintf(
				"datacenters %s and %s are not in the order every holder takes them in", ins[i-1].Key, ins[i].Key)}
		}
	}
	for i := range ins {
		if t := c.Evaluate(ins[i]); t.Verdict != Held {
			return i, t
		}
	}
	return len(ins), Take{Verdict: Held}
}

// before orders datacenters as datacenter.Keys does.
func before(a, b types.NamespacedName) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// HeldBy are the datacenters among dcs whose lock is the holder's: what it gives back.
func HeldBy(h datacenter.Holder, dcs []*cassdcapi.CassandraDatacenter) []types.NamespacedName {
	var out []types.NamespacedName
	for _, dc := range dcs {
		if dc == nil {
			continue
		}
		if holder, locked := datacenter.LockHolder(dc); locked && holder == h {
			out = append(out, types.NamespacedName{Namespace: dc.Namespace, Name: dc.Name})
		}
	}
	return out
}
