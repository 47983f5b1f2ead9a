package controllers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// TestPriceResults: a priced run's results get the cost of the datacenter's nodes as the run
// holds it, and of the writers apart; an unpriced run's get none.
func TestPriceResults(t *testing.T) {
	dc := builders.MakeDatacenter("dc1", "default").Size(3).Apply(func(d *cassdcapi.CassandraDatacenter) {
		d.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	}).Obj()
	run := builders.MakeBenchmarkRun("r", "default").Writers(2).Obj()
	run.Spec.Writers.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}

	r := &cbv1.Results{OpsPerSecond: 5000}
	priceResults(run, defaultPricing{}, dc, r)
	if r.Cost != nil {
		t.Fatalf("cost without prices: %+v", r.Cost)
	}
	run.Spec.Pricing = &cbv1.Pricing{PerCoreHour: "0.05", PerGiBHour: "0.01", Currency: "USD"}
	priceResults(run, defaultPricing{}, dc, r)
	// A node 2 × 0.05 + 8 × 0.01 = 0.18, three 0.54 an hour for 18M operations: 0.03 a
	// million; a writer 0.05, two 0.1: 0.005556 a million.
	want := &cbv1.CostResults{Currency: "USD", DatacenterPerHour: "0.54", PerMillionOperations: "0.03",
		WritersPerHour: "0.1", WritersPerMillionOperations: "0.005556", PricedBy: "spec.pricing"}
	if diff := cmp.Diff(want, r.Cost); diff != "" {
		t.Errorf("cost (-want +got):\n%s", diff)
	}
}

// The manager's pricing ConfigMap is held to what admission holds spec.pricing to, and a
// ConfigMap that fails names its key and the field.
func TestParsePricing(t *testing.T) {
	tests := map[string]struct {
		doc  string
		want *cbv1.Pricing
		note string
	}{
		"per node":         {doc: "perNodeHour: \"0.192\"", want: &cbv1.Pricing{PerNodeHour: "0.192"}},
		"per core and GiB": {doc: "perCoreHour: \"0.05\"\nperGiBHour: \"0.01\"\ncurrency: EUR", want: &cbv1.Pricing{PerCoreHour: "0.05", PerGiBHour: "0.01", Currency: "EUR"}},
		"not a price":      {doc: "perNodeHour: \"$3\"", note: `perNodeHour "$3" is not a price`},
		"both":             {doc: "perNodeHour: \"1\"\nperCoreHour: \"0.05\"", note: "give perNodeHour, or perCoreHour and perGiBHour, not both nor neither"},
		"neither":          {doc: "currency: EUR", note: "not both nor neither"},
		"a typo":           {doc: "perNodeHuor: \"1\"", note: `unknown field "perNodeHuor"`},
		"long currency":    {doc: "perNodeHour: \"1\"\ncurrency: EUROSEURO", note: "longer than 8"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cm := &corev1.ConfigMap{Data: map[string]string{PricingKey: tc.doc}}
			cm.Namespace, cm.Name = "cassbench-system", "prices"
			got, note := parsePricing(cm)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pricing (-want +got):\n%s", diff)
			}
			if tc.note == "" && note != "" || !strings.Contains(note, tc.note) ||
				tc.note != "" && !strings.Contains(note, "cassbench-system/prices, key pricing.yaml") {
				t.Errorf("note %q, want one naming the ConfigMap and %q", note, tc.note)
			}
		})
	}
	if _, note := parsePricing(&corev1.ConfigMap{}); !strings.Contains(note, "key pricing.yaml, is missing") {
		t.Errorf("a ConfigMap without the key: %q", note)
	}
	// A run without prices whose manager's ConfigMap failed keeps the note and no figures.
	r := &cbv1.Results{OpsPerSecond: 5000}
	priceResults(builders.MakeBenchmarkRun("r", "default").Obj(), defaultPricing{by: "ConfigMap a/b", note: "not priced: gone"},
		builders.MakeDatacenter("dc1", "default").Obj(), r)
	if want := (&cbv1.CostResults{PricedBy: "ConfigMap a/b", Note: "not priced: gone"}); !cmp.Equal(want, r.Cost) {
		t.Errorf("cost %+v, want %+v", r.Cost, want)
	}
}
