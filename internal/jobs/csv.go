package jobs

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/podenv"
)

// csvVolume is the volume of the ConfigMap of schema.csv.
const csvVolume = "csv"

// mountCSV mounts the ConfigMap of schema.csv read-only at podenv.CSVDir, only the file the
// spec names, so the writer finds it at CSVDir/key. The volume is optional: a pod whose
// ConfigMap is missing would wait in ContainerCreating until the run's deadline, where a
// writer that starts without the file fails at once, saying which ConfigMap and key it needs.
func mountCSV(run *cbv1.BenchmarkRun, pod *corev1.PodSpec, c *corev1.Container) {
	src := run.Spec.Schema.CSV
	if src == nil {
		return
	}
	pod.Volumes = append(pod.Volumes, corev1.Volume{Name: csvVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: src.ConfigMapName},
		Items:                []corev1.KeyToPath{{Key: src.Key, Path: src.Key}},
		DefaultMode:          ptr.To[int32](0o444),
		Optional:             ptr.To(true),
	}}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: csvVolume, MountPath: podenv.CSVDir, ReadOnly: true})
}
