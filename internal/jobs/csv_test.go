package jobs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
)

// The ConfigMap of schema.csv is mounted read-only into writer pods, its one file where the
// writer looks for it; a run without one mounts nothing.
func TestWritersMountTheCSVConfigMap(t *testing.T) {
	for name, tc := range map[string]struct {
		csv     *cbv1.CSVSource
		volumes []corev1.Volume
		mounts  []corev1.VolumeMount
	}{
		"no csv": {},
		"csv": {
			csv: &cbv1.CSVSource{ConfigMapName: "ip-ranges", Key: "ranges.csv"},
			volumes: []corev1.Volume{{Name: "csv", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "ip-ranges"},
				Items:                []corev1.KeyToPath{{Key: "ranges.csv", Path: "ranges.csv"}},
				DefaultMode:          ptr.To[int32](0o444),
				Optional:             ptr.To(true),
			}}}},
			mounts: []corev1.VolumeMount{{Name: "csv", MountPath: podenv.CSVDir, ReadOnly: true}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			run := ipRun()
			run.Spec.Schema.CSV = tc.csv
			job, err := Writers(run, target, 0)
			if err != nil {
				t.Fatal(err)
			}
			pod := job.Spec.Template.Spec
			if diff := cmp.Diff(tc.volumes, pod.Volumes[1:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("volumes besides tmp (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.mounts, pod.Containers[0].VolumeMounts[1:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("mounts besides tmp (-want +got):\n%s", diff)
			}
		})
	}
}
