package admission

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCapacityAdmission runs spec.capacity through the CRD's own rules: every refusal names
// the field, and the defaults the docs promise are what a search gets.
func TestCapacityAdmission(t *testing.T) {
	const base = "datacenterRef: {name: dc1}\nwriters: {replicas: 2, rate: 1000, duration: 10s}\n"
	tests := map[string]struct {
		yaml string
		err  string
	}{
		"zero p99": {
			yaml: base + "capacity: {objective: {p99: 0s}}\n",
			err:  `spec.capacity.objective.p99: Invalid value: "0s": capacity.objective.p99 must be longer than 0s`,
		},
		"negative p99": {
			yaml: base + "capacity: {objective: {p99: -5ms}}\n",
			err:  "spec.capacity.objective.p99: Invalid value: \"-5ms\": spec.capacity.objective.p99 in body should match",
		},
		"no p99": {
			yaml: base + "capacity: {objective: {}}\n",
			err:  "spec.capacity.objective.p99: Required value",
		},
		"zero p99.9": {
			yaml: base + "capacity: {objective: {p99: 5ms, p999: 0ms}}\n",
			err:  "capacity.objective.p999 must be longer than 0s",
		},
		"negative timeouts": {
			yaml: base + "capacity: {objective: {p99: 5ms, timeoutsPerMillion: -1}}\n",
			err:  "spec.capacity.objective.timeoutsPerMillion: Invalid value: -1",
		},
		"precision zero": {
			yaml: base + "capacity: {objective: {p99: 5ms}, precisionPercent: 0}\n",
			err:  "spec.capacity.precisionPercent: Invalid value: 0",
		},
		"precision too coarse": {
			yaml: base + "capacity: {objective: {p99: 5ms}, precisionPercent: 51}\n",
			err:  "spec.capacity.precisionPercent: Invalid value: 51",
		},
		"one step": {
			yaml: base + "capacity: {objective: {p99: 5ms}, maxSteps: 1}\n",
			err:  "spec.capacity.maxSteps: Invalid value: 1",
		},
		"too many steps": {
			yaml: base + "capacity: {objective: {p99: 5ms}, maxSteps: 65}\n",
			err:  "spec.capacity.maxSteps: Invalid value: 65",
		},
		"two intervals": {
			yaml: base + "capacity: {objective: {p99: 5ms}, intervals: 2}\n",
			err:  "spec.capacity.intervals: Invalid value: 2",
		},
		"no rate to start from": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 2, duration: 10s}\ncapacity: {objective: {p99: 5ms}}\n",
			err:  "capacity searches from writers.rate: set writers.rate to the first rate to try",
		},
		"operations instead of a duration": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 2, rate: 10, operations: 100}\ncapacity: {objective: {p99: 5ms}}\n",
			err:  "capacity runs each step for writers.duration: set writers.duration, not writers.operations",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := RunSpec(context.Background(), []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want it to say %q", err, tc.err)
			}
		})
	}

	s, err := RunSpec(context.Background(), []byte(base+"capacity: {objective: {p99: 5ms}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Capacity
	type view struct {
		P99                                          time.Duration
		Precision, Steps, Intervals, Spread, Extends int32
		Timeouts                                     int64
		DebtWait                                     time.Duration
	}
	got := view{c.Objective.P99.Duration, c.PrecisionPercent, c.MaxSteps, c.Intervals, c.P99SpreadPercent, *c.MaxExtensions,
		*c.Objective.TimeoutsPerMillion, c.DebtWaitLimit.Duration}
	want := view{5 * time.Millisecond, 2, 16, 10, 10, 2, 100, 5 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// TestPricingAdmission: prices are decimal strings, per node or per resource, not both.
func TestPricingAdmission(t *testing.T) {
	const base = "datacenterRef: {name: dc1}\nwriters: {replicas: 2, duration: 10s}\n"
	tests := map[string]string{
		"pricing: {perNodeHour: '0.5', perCoreHour: '0.04'}": "pricing takes perNodeHour, or perCoreHour and perGiBHour, not both",
		"pricing: {perNodeHour: '-1'}":                       "spec.pricing.perNodeHour: Invalid value: \"-1\"",
		"pricing: {perGiBHour: 'cheap'}":                     "spec.pricing.perGiBHour: Invalid value: \"cheap\"",
		"pricing: {}":                                        "pricing takes perNodeHour, or perCoreHour and perGiBHour, not both",
	}
	for yaml, want := range tests {
		t.Run(yaml, func(t *testing.T) {
			_, err := RunSpec(context.Background(), []byte(base+yaml+"\n"))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want it to say %q", err, want)
			}
		})
	}
	s, err := RunSpec(context.Background(), []byte(base+"pricing: {perCoreHour: '0.04', perGiBHour: '0.005'}\n"))
	if err != nil || s.Pricing.Currency != "USD" {
		t.Fatalf("priced spec: %v, %+v", err, s)
	}
}
