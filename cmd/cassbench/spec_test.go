package main

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestLocalWarning(t *testing.T) {
	size := int32(5)
	tests := map[string]struct {
		dc   *cbv1.DatacenterTuning
		warn bool
	}{
		"no datacenter section": {},
		"keep changes only":     {dc: &cbv1.DatacenterTuning{KeepChanges: true}},
		"size":                  {dc: &cbv1.DatacenterTuning{Size: &size}, warn: true},
		"config":                {dc: &cbv1.DatacenterTuning{Config: &cbv1.DatacenterConfig{}}, warn: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := &cbv1.BenchmarkRunSpec{Datacenter: tc.dc, Writers: cbv1.WritersSpec{Duration: &metav1.Duration{}}}
			got := localWarning(s)
			if (got != "") != tc.warn || tc.warn && !strings.Contains(got, "verified, not applied") {
				t.Errorf("warning %q, want one: %t", got, tc.warn)
			}
		})
	}
}
