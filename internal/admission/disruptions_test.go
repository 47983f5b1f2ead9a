package admission

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// TestDisruptionsAdmission runs spec.disruptions through the CRD's own rules: a time outside
// the measured window, an unknown kind or node, and a window the disruptions cannot be timed in
// are refused, each naming the field.
func TestDisruptionsAdmission(t *testing.T) {
	const base = "datacenterRef: {name: dc1}\nwriters: {replicas: 2, duration: 60s}\n"
	tests := map[string]struct {
		yaml string
		err  string
	}{
		"at the window's end": {
			yaml: base + "disruptions: [{kind: DeletePod, node: 2, at: 60s}]\n",
			err:  "spec.disruptions: Invalid value: every disruptions[].at must fall inside the measured window",
		},
		"past the window": {
			yaml: base + "disruptions: [{kind: Flush, node: 1, at: 10s}, {kind: DeletePod, node: 2, at: 2m}]\n",
			err:  "spec.disruptions: Invalid value: every disruptions[].at must fall inside the measured window",
		},
		"a negative time": {
			yaml: base + "disruptions: [{kind: DeletePod, node: 2, at: -5s}]\n",
			err:  "spec.disruptions[0].at: Invalid value: \"-5s\"",
		},
		"an unknown kind": {
			yaml: base + "disruptions: [{kind: StopNode, node: 2, at: 20s}]\n",
			err:  "spec.disruptions[0].kind: Unsupported value: \"StopNode\": supported values: \"DeletePod\", \"Drain\", \"Flush\", \"Compact\"",
		},
		"node 0": {
			yaml: base + "disruptions: [{kind: DeletePod, node: 0, at: 20s}]\n",
			err:  "spec.disruptions[0].node: Invalid value: 0",
		},
		"a node past datacenter.size": {
			yaml: base + "datacenter: {size: 2}\ndisruptions: [{kind: Drain, node: 3, at: 20s}]\n",
			err:  "spec.disruptions: Invalid value: every disruptions[].node must be one of the datacenter's nodes, 1 to datacenter.size",
		},
		"no kind": {
			yaml: base + "disruptions: [{node: 1, at: 20s}]\n",
			err:  "spec.disruptions[0].kind: Required value",
		},
		"operations instead of a duration": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 2, rate: 10, operations: 100}\ndisruptions: [{kind: Flush, node: 1, at: 1s}]\n",
			err:  "spec.disruptions: Invalid value: disruptions are timed inside the measured window: set writers.duration",
		},
		"with a capacity search": {
			yaml: "datacenterRef: {name: dc1}\nwriters: {replicas: 2, rate: 10, duration: 60s}\ncapacity: {objective: {p99: 5ms}}\ndisruptions: [{kind: Flush, node: 1, at: 1s}]\n",
			err:  "spec.disruptions: Invalid value: disruptions and capacity do not mix",
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

	s, err := RunSpec(context.Background(), []byte(base+"datacenter: {size: 2}\n"+
		"disruptions: [{kind: DeletePod, node: 2, at: 20s}, {kind: Compact, node: 1, at: 59.5s}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []cbv1.Disruption{
		{Kind: cbv1.DisruptionDeletePod, Node: 2, At: metav1.Duration{Duration: 20 * time.Second}},
		{Kind: cbv1.DisruptionCompact, Node: 1, At: metav1.Duration{Duration: 59500 * time.Millisecond}},
	}
	if diff := cmp.Diff(want, s.Disruptions); diff != "" {
		t.Errorf("admitted disruptions (-want +got):\n%s", diff)
	}
}
