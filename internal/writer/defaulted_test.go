package writer

import (
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
)

// The writer reads the CRD's defaults from the spec and refuses a spec that lacks them,
// naming every field, rather than running with values of its own.
func TestLoadRefusesAnUndefaultedSpec(t *testing.T) {
	err := defaulted(cbv1.WritersSpec{Replicas: 1, Concurrency: 4})
	if err == nil || !strings.Contains(err.Error(), "requestTimeout, retries, connectionsPerHost") {
		t.Fatalf("undefaulted spec: %v", err)
	}
	spec, err := admission.DefaultRunSpec(&cbv1.BenchmarkRunSpec{Writers: cbv1.WritersSpec{Replicas: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := defaulted(spec.Writers); err != nil {
		t.Errorf("a defaulted spec refused: %v", err)
	}
}
