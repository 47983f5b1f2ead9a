package controllers

import (
	"context"
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/jobs"
)

// PricingKey is the key of the manager's pricing ConfigMap (--pricing-configmap, the chart's
// pricing values) that holds its prices: a YAML document of spec.pricing's fields. They price
// every run that gives no spec.pricing of its own, so that a team sets its prices once.
const PricingKey = "pricing.yaml"

// defaultPricing is what the manager's pricing ConfigMap gave: prices, or why there are none.
type defaultPricing struct {
	pricing *cbv1.Pricing
	// by names the ConfigMap; note says why it priced nothing.
	by, note string
}

// observePricing reads the manager's pricing ConfigMap for a run that gives no prices, once
// its writers run (the only stage that prices). It reads past the cache: the ConfigMap is in
// the manager's namespace, which the cache may not watch.
func (r *BenchmarkRunReconciler) observePricing(ctx context.Context, run *cbv1.BenchmarkRun, o *observation) error {
	if run.Spec.Pricing != nil || r.PricingConfigMap.Name == "" || o.jobs[jobs.ComponentWriter] == nil {
		return nil
	}
	var reader client.Reader = r.Client
	if r.APIReader != nil {
		reader = r.APIReader
	}
	key := r.PricingConfigMap
	o.pricing.by = "ConfigMap " + key.String()
	var cm corev1.ConfigMap
	switch err := reader.Get(ctx, key, &cm); {
	case apierrors.IsNotFound(err):
		o.pricing.note = fmt.Sprintf("not priced: the manager's pricing ConfigMap %s is not there (create it with key %s, or give spec.pricing)", key, PricingKey)
	case apierrors.IsForbidden(err):
		o.pricing.note = fmt.Sprintf("not priced: the manager may not read its pricing ConfigMap %s (grant it get there)", key)
	case err != nil:
		return fmt.Errorf("reading the pricing ConfigMap %s: %w", key, err)
	default:
		o.pricing.pricing, o.pricing.note = parsePricing(&cm)
	}
	return nil
}

// price is a price as spec.pricing admits it (the CRD's pattern on each field).
var price = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,6})?$`)

// parsePricing reads the prices of the ConfigMap's PricingKey and holds them to what
// admission holds spec.pricing to; otherwise nil and a note naming the key and the field.
func parsePricing(cm *corev1.ConfigMap) (*cbv1.Pricing, string) {
	where := fmt.Sprintf("the pricing ConfigMap %s/%s, key %s", cm.Namespace, cm.Name, PricingKey)
	doc, ok := cm.Data[PricingKey]
	if !ok {
		return nil, "not priced: " + where + ", is missing"
	}
	var p cbv1.Pricing
	if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
		return nil, fmt.Sprintf("not priced: %s: %v", where, err)
	}
	for _, f := range []struct{ name, v string }{{"perNodeHour", p.PerNodeHour}, {"perCoreHour", p.PerCoreHour}, {"perGiBHour", p.PerGiBHour}} {
		if f.v != "" && !price.MatchString(f.v) {
			return nil, fmt.Sprintf("not priced: %s: %s %q is not a price (digits, up to 6 decimals, e.g. 0.192)", where, f.name, f.v)
		}
	}
	if (p.PerNodeHour != "") == (p.PerCoreHour != "" || p.PerGiBHour != "") {
		return nil, "not priced: " + where + ": give perNodeHour, or perCoreHour and perGiBHour, not both nor neither"
	}
	if len(p.Currency) > 8 {
		return nil, fmt.Sprintf("not priced: %s: currency %q is longer than 8 characters", where, p.Currency)
	}
	return &p, ""
}
