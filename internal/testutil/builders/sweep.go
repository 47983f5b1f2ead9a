package builders

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// SweepBuilder builds a BenchmarkSweep.
type SweepBuilder struct {
	cbv1.BenchmarkSweep
}

// MakeSweep starts a sweep that the CRD admits once it has an axis: its template is
// MakeBenchmarkRun's run (datacenter dc1, one writer) with a one-second window.
func MakeSweep(name, namespace string) *SweepBuilder {
	return &SweepBuilder{cbv1.BenchmarkSweep{
		TypeMeta:   metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkSweep"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: cbv1.BenchmarkSweepSpec{
			Template: MakeBenchmarkRun("", namespace).Datacenter("dc1").Writers(1).Duration(time.Second).Obj().Spec,
		},
	}}
}

// Obj returns the built object.
func (b *SweepBuilder) Obj() *cbv1.BenchmarkSweep { return &b.BenchmarkSweep }

// Clone returns a copy to change without changing this one.
func (b *SweepBuilder) Clone() *SweepBuilder { return &SweepBuilder{*b.DeepCopy()} }

// Axis adds an axis over path with the given values (ints and strings, as YAML has them).
func (b *SweepBuilder) Axis(path string, values ...any) *SweepBuilder {
	b.Spec.Axes = append(b.Spec.Axes, Axis(path, values...))
	return b
}

// Axes adds axes built elsewhere.
func (b *SweepBuilder) Axes(axes ...cbv1.SweepAxis) *SweepBuilder {
	b.Spec.Axes = append(b.Spec.Axes, axes...)
	return b
}

// Template sets the run every point starts from.
func (b *SweepBuilder) Template(spec cbv1.BenchmarkRunSpec) *SweepBuilder {
	b.Spec.Template = spec
	return b
}

// Restore sets spec.restore.
func (b *SweepBuilder) Restore(r cbv1.SweepRestore) *SweepBuilder {
	b.Spec.Restore = r
	return b
}

// Repeats sets spec.repeats.
func (b *SweepBuilder) Repeats(n int32) *SweepBuilder {
	b.Spec.Repeats = n
	return b
}

// LoadOnce sets spec.loadOnce.
func (b *SweepBuilder) LoadOnce(on bool) *SweepBuilder {
	b.Spec.LoadOnce = on
	return b
}

// UID sets metadata.uid, as the apiserver would.
func (b *SweepBuilder) UID(uid types.UID) *SweepBuilder {
	b.ObjectMeta.UID = uid
	return b
}

// Created sets metadata.creationTimestamp, as the apiserver would.
func (b *SweepBuilder) Created(t time.Time) *SweepBuilder {
	b.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Axis is a sweep axis over path; values are ints and strings, as a user writes them in
// YAML.
func Axis(path string, values ...any) cbv1.SweepAxis {
	a := cbv1.SweepAxis{Path: path}
	for _, v := range values {
		switch v := v.(type) {
		case int:
			a.Values = append(a.Values, intstr.FromInt32(int32(v)))
		case int32:
			a.Values = append(a.Values, intstr.FromInt32(v))
		case string:
			a.Values = append(a.Values, intstr.FromString(v))
		default:
			panic(fmt.Sprintf("axis value %v of type %T: give an int or a string", v, v))
		}
	}
	return a
}
