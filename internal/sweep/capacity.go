package sweep

import (
	"math"
	"strconv"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// capacityAndCost fills a row's capacity, the lowest its runs found (a capacity every repeat
// met), and its cost per million operations, the mean of its runs' costs.
func capacityAndCost(row *cbv1.SweepPoint, rs []*cbv1.Results) {
	var costSum float64
	var costs int
	for _, r := range rs {
		if c := r.Capacity; c != nil && (row.Capacity == 0 || c.OpsPerSecond < row.Capacity) {
			row.Capacity = c.OpsPerSecond
		}
		if c := r.Cost; c != nil && c.PerMillionOperations != "" {
			if v, err := strconv.ParseFloat(c.PerMillionOperations, 64); err == nil {
				costSum += v
				costs++
				row.Currency = c.Currency
			}
		}
	}
	if costs > 0 {
		row.CostPerMillionOperations = strconv.FormatFloat(costSum/float64(costs), 'g', 4, 64)
	}
}

// betterBy compares two points by capacity (higher is better) or cost (lower is better; a
// point without one is worst); decided is false on a tie.
func betterBy(a, b *cbv1.SweepPoint, by cbv1.SweepMetric) (better, decided bool) {
	if by == cbv1.BestByCapacity {
		return a.Capacity > b.Capacity, a.Capacity != b.Capacity
	}
	ca, cb := costOf(a), costOf(b)
	return ca < cb, ca != cb
}

func costOf(p *cbv1.SweepPoint) float64 {
	v, err := strconv.ParseFloat(p.CostPerMillionOperations, 64)
	if err != nil || p.CostPerMillionOperations == "" {
		return math.Inf(1)
	}
	return v
}
