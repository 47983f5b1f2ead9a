package lending

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

func TestNudge(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 40, 0, time.UTC)
	since := now.Add(-time.Minute)
	thirty := 30 * time.Second
	cases := map[string]struct {
		last  string
		since time.Time
		every time.Duration
		value *string
		next  time.Duration
	}{
		"never nudged, waiting a minute: now":     {since: since, every: thirty, value: ptr.To("2026-11-28T10:00:40Z"), next: thirty},
		"never nudged, waiting 5 s: in 25 s":      {since: now.Add(-5 * time.Second), every: thirty, next: 25 * time.Second},
		"nudged 10 s ago: in 20 s":                {last: "2026-11-28T10:00:30Z", since: since, every: thirty, next: 20 * time.Second},
		"nudged 30 s ago: now":                    {last: "2026-11-28T10:00:10Z", since: since, every: thirty, value: ptr.To("2026-11-28T10:00:40Z"), next: thirty},
		"not a time (set by hand): from the wait": {last: "yes", since: since, every: thirty, value: ptr.To("2026-11-28T10:00:40Z"), next: thirty},
		"in another zone, 10 s ago: in 20 s":      {last: "2026-11-28T11:00:30+01:00", since: since, every: thirty, next: 20 * time.Second},
		"a shorter interval (tests): now":         {last: "2026-11-28T10:00:38Z", since: since, every: time.Second, value: ptr.To("2026-11-28T10:00:40Z"), next: time.Second},
		"interval zero: nudging off":              {since: since},
		"interval zero, nudged before: no more":   {last: "2026-11-28T10:00:10Z", since: since},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := builders.MakeDatacenter("dc1", "bench")
			if tc.last != "" {
				b = b.Annotation(cbv1.ReconcileRequestedAnnotation, tc.last)
			}
			value, next := Nudge(b.Obj(), tc.since, now, tc.every)
			if diff := cmp.Diff(tc.value, value); diff != "" || next != tc.next {
				t.Errorf("Nudge = %v, %s; want %v, %s (-want +got value: %s)", ptr.Deref(value, "<nil>"), next, ptr.Deref(tc.value, "<nil>"), tc.next, diff)
			}
		})
	}
}

// A nudge sets the annotation and the removal removes it, leaving every other annotation.
func TestApplyNudge(t *testing.T) {
	dc := builders.MakeDatacenter("dc1", "bench").AllowBenchmarks("true").Obj()
	Apply(&Change{Nudge: ptr.To("2026-11-28T10:00:40Z")}, dc)
	if got := dc.Annotations[cbv1.ReconcileRequestedAnnotation]; got != "2026-11-28T10:00:40Z" {
		t.Fatalf("after a nudge the annotation is %q", got)
	}
	Apply(&Change{Nudge: ptr.To("")}, dc)
	if _, ok := dc.Annotations[cbv1.ReconcileRequestedAnnotation]; ok {
		t.Fatalf("the removal left the annotation: %v", dc.Annotations)
	}
	if dc.Annotations[cbv1.AllowBenchmarksAnnotation] != "true" {
		t.Fatalf("the nudge touched another annotation: %v", dc.Annotations)
	}
	if (&Change{Nudge: ptr.To("")}).Empty() {
		t.Fatal("a change that removes the nudge reads as empty")
	}
}
