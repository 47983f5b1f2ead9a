// Package cost prices a result: what the datacenter (and, apart, the writers) cost per hour at
// the prices the user gave, and per million operations at the throughput measured.
package cost

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Priced is what is priced: Nodes Cassandra nodes each with Node's resources, Writers
// writers each with Writer's, at OpsPerSecond.
type Priced struct {
	Nodes        int32
	Node         corev1.ResourceRequirements
	Writers      int32
	Writer       corev1.ResourceRequirements
	OpsPerSecond int64
}

// Of prices what; nil without prices (no prices, no cost figures).
func Of(p *cbv1.Pricing, what Priced) *cbv1.CostResults {
	if p == nil {
		return nil
	}
	out := &cbv1.CostResults{Currency: p.Currency}
	if out.Currency == "" {
		out.Currency = "USD"
	}
	var notes []string
	dc, ok, why := perHour(p, what.Node, true)
	if !ok {
		notes = append(notes, "the datacenter: "+why)
	} else {
		dc *= float64(what.Nodes)
		out.DatacenterPerHour = money(dc)
		out.PerMillionOperations = perMillion(dc, what.OpsPerSecond)
	}
	if w, ok, why := perHour(p, what.Writer, false); !ok {
		notes = append(notes, "the writers: "+why)
	} else {
		w *= float64(what.Writers)
		out.WritersPerHour = money(w)
		out.WritersPerMillionOperations = perMillion(w, what.OpsPerSecond)
	}
	if len(notes) > 0 {
		out.Note = clip(fmt.Sprintf("not priced: %s", strings.Join(notes, "; ")), 256)
	}
	return out
}

// NotPriced is the cost of a result whose prices could not be had: none, with why, and by
// where they should have come from.
func NotPriced(by, why string) *cbv1.CostResults {
	return &cbv1.CostResults{PricedBy: clip(by, 320), Note: clip(why, 256)}
}

// perHour is the price of one container with r's resources for an hour: requests, or limits
// where a request is unset. A node price applies to nodes only.
func perHour(p *cbv1.Pricing, r corev1.ResourceRequirements, node bool) (float64, bool, string) {
	if p.PerNodeHour != "" {
		if !node {
			return 0, false, "pricing.perNodeHour prices nodes; give perCoreHour and perGiBHour to price the writers"
		}
		v, err := strconv.ParseFloat(p.PerNodeHour, 64)
		return v, err == nil, "pricing.perNodeHour is not a number"
	}
	cores, hasCores := quantity(r, corev1.ResourceCPU)
	mem, hasMem := quantity(r, corev1.ResourceMemory)
	if !hasCores && !hasMem {
		return 0, false, "no CPU or memory requested to price"
	}
	var total float64
	if hasCores && p.PerCoreHour != "" {
		v, err := strconv.ParseFloat(p.PerCoreHour, 64)
		if err != nil {
			return 0, false, "pricing.perCoreHour is not a number"
		}
		total += v * float64(cores.MilliValue()) / 1000
	}
	if hasMem && p.PerGiBHour != "" {
		v, err := strconv.ParseFloat(p.PerGiBHour, 64)
		if err != nil {
			return 0, false, "pricing.perGiBHour is not a number"
		}
		total += v * float64(mem.Value()) / (1 << 30)
	}
	return total, true, ""
}

// quantity is a resource's request, or its limit where it requests none.
func quantity(r corev1.ResourceRequirements, name corev1.ResourceName) (resource.Quantity, bool) {
	if q, ok := r.Requests[name]; ok {
		return q, true
	}
	q, ok := r.Limits[name]
	return q, ok
}

// perMillion is the cost of a million operations at opsPerSecond for perHour an hour.
func perMillion(perHour float64, opsPerSecond int64) string {
	if opsPerSecond <= 0 {
		return ""
	}
	return money(perHour / (float64(opsPerSecond) * 3600) * 1e6)
}

// money keeps four significant digits: prices are not known better.
func money(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
