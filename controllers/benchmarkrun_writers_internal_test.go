package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestExitProblemTellsAnOOMKilledWriterWhatToChange(t *testing.T) {
	limited := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}}
	for name, tc := range map[string]struct {
		report    cbv1.WriterReport
		resources corev1.ResourceRequirements
		want      string
	}{
		"killed by its limit": {
			report:    cbv1.WriterReport{Index: 0, Pod: "r-writer-0-abc", ExitCode: 137, Reason: "OOMKilled"},
			resources: limited,
			want:      "writer 0 (pod r-writer-0-abc) exited with code 137 (OOMKilled): it used all of its memory limit (writers.resources.limits.memory 32Mi); raise it or lower writers.concurrency",
		},
		"killed with no limit of its own": {
			report: cbv1.WriterReport{Index: 2, Pod: "r-writer-2-abc", ExitCode: 137, Reason: "OOMKilled"},
			want:   "writer 2 (pod r-writer-2-abc) exited with code 137 (OOMKilled): the kernel killed it for memory, which its node or pod ran short of; set writers.resources.limits.memory and requests to what it needs",
		},
		"another failure": {
			report:    cbv1.WriterReport{Index: 1, Pod: "r-writer-1-abc", ExitCode: 2, Reason: "Error"},
			resources: limited,
			want:      "writer 1 (pod r-writer-1-abc) exited with code 2 (Error)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			if got := exitProblem(tc.report, tc.resources); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
