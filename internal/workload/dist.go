package workload

import (
	"fmt"
	"math"
	"strconv"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// defaultZipf is the exponent when none is given: skewed enough that a handful of values take
// most draws, as in the hot-partition experiments.
const defaultZipf = 1.1

// picker draws indexes in [0, n) by one distribution.
type picker struct {
	dist cbv1.Distribution
	n    uint64
	z    *zipf
	hN   float64 // z.top(n), so fixed-n draws skip a log and an exp
}

func newPicker(d cbv1.Distribution, n uint64, exponent string) (picker, error) {
	p := picker{dist: d, n: n}
	switch d {
	case "", cbv1.DistributionUniform:
		p.dist = cbv1.DistributionUniform
	case cbv1.DistributionSequence, cbv1.DistributionNormal:
	case cbv1.DistributionZipf:
		s := defaultZipf
		if exponent != "" {
			var err error
			if s, err = strconv.ParseFloat(exponent, 64); err != nil {
				return p, fmt.Errorf("zipf exponent %q is not a number", exponent)
			}
		}
		z, err := newZipf(s)
		if err != nil {
			return p, err
		}
		p.z, p.hN = z, z.top(n)
	default:
		return p, fmt.Errorf("unknown distribution %q: use sequence, uniform, zipf or normal", d)
	}
	return p, nil
}

// pick takes seq for the sequence distribution and a hash for the others.
func (p *picker) pick(seq, h uint64) uint64 {
	if p.z != nil {
		return p.z.rankIn(h, p.n, p.hN)
	}
	return p.pickIn(p.n, seq, h)
}

func (p *picker) pickIn(n, seq, h uint64) uint64 {
	switch p.dist {
	case cbv1.DistributionSequence:
		return seq % n
	case cbv1.DistributionZipf:
		return p.z.rank(h, n)
	case cbv1.DistributionNormal:
		return normalIn(h, n)
	}
	return below(h, n)
}

// normalIn draws from a normal centred on [0, n) with three standard deviations to each edge,
// clamped. Box-Muller on two halves of one hash keeps it exact and table-free.
func normalIn(h, n uint64) uint64 {
	u1 := (float64(h>>11) + 1) / (1 << 53) // (0, 1]: log must not see 0
	u2 := unit(mix(h))
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	x := math.Round(float64(n-1)/2 + z*float64(n)/6)
	if x < 0 {
		return 0
	}
	if x > float64(n-1) {
		return n - 1
	}
	return uint64(x)
}
