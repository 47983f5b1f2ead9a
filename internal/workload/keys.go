package workload

import (
	"fmt"
	"math/bits"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// keyPlan maps a writer's row ordinals to the numbers key columns spell (see the package
// documentation).
type keyPlan struct {
	writers, index uint64
	partitions     uint64
	perPartition   uint64
	lo, owned      uint64 // the writer's slice of the partitions, when partitions > 0
	pick           picker
	salt           uint64
	// numbered says the partition key has identity columns, which spell the partition number;
	// without them partitions are drawn per row and shared by all writers.
	numbered bool
}

type rowKey struct {
	pn     uint64 // partition number
	gid    uint64 // global row id, also the clustering number
	anchor uint64 // what partition-level draws hash: the partition, or the row if unnumbered
}

func newKeyPlan(w cbv1.WorkloadSpec, index, writers uint64, numbered, clustered bool) (keyPlan, error) {
	if w.Partitions < 0 {
		return keyPlan{}, fmt.Errorf("workload.partitions %d is negative", w.Partitions)
	}
	k := keyPlan{
		writers: writers, index: index, partitions: uint64(w.Partitions), perPartition: 1,
		salt: mix(uint64(w.Seed) ^ 0x70617274), numbered: numbered,
	}
	// Without clustering columns every row of a partition would be the same row.
	if clustered && w.RowsPerPartition > 1 {
		k.perPartition = uint64(w.RowsPerPartition)
	}
	var err error
	if k.partitions > 0 && numbered {
		k.lo = share(k.partitions, index, writers)
		k.owned = share(k.partitions, index+1, writers) - k.lo
		if k.owned == 0 {
			return k, fmt.Errorf("workload.partitions %d is fewer than writers.replicas %d: every writer needs partitions of its own", k.partitions, writers)
		}
		if k.pick, err = newPicker(w.KeyDistribution, k.owned, w.KeyZipfExponent); err != nil {
			return k, fmt.Errorf("workload.keyDistribution: %w", err)
		}
	}
	return k, nil
}

// share is p*i/n without overflow: where writer i's slice of p partitions starts.
func share(p, i, n uint64) uint64 {
	hi, lo := bits.Mul64(p, i)
	q, _ := bits.Div64(hi, lo, n)
	return q
}

func (k *keyPlan) of(r uint64) rowKey {
	gid := r*k.writers + k.index
	var pn uint64
	if k.partitions == 0 {
		pn = (r/k.perPartition)*k.writers + k.index
	} else if k.numbered {
		pn = k.lo + k.pick.pick(r, mix(r^k.salt))
	}
	anchor := gid
	if k.numbered {
		anchor = pn
	}
	return rowKey{pn: pn, gid: gid, anchor: anchor}
}
