// Package sweep is the pure logic of a BenchmarkSweep: expanding its axes into points,
// applying a point to the run template, naming and building child runs, choosing the next run
// to create and tabulating the children's results.
package sweep

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// errNotAdmitted reports axes the CRD refuses: the sweep did not come through the API server.
var errNotAdmitted = errors.New("spec.axes are not what the BenchmarkSweep CRD admits")

// maxValueText bounds one value as shown in the status table: a CQL statement may be 16 KiB.
const maxValueText = 128

// Point is one combination of the axes' values.
type Point struct {
	// Index is the point's position in the stable order, from 0.
	Index int
	// Values holds one value per axis, in axis order.
	Values []intstr.IntOrString
}

// Expand lists a sweep's points in a stable order: in cartesian mode the first axis varies
// slowest and the last fastest; in zip mode point i takes the i-th value of every axis. The
// CRD admits only sweeps whose axes have distinct paths, values, equal lengths in zip mode and
// at most 200 points; Expand refuses only what would make it index out of range.
func Expand(spec *cbv1.BenchmarkSweepSpec) ([]Point, error) {
	if len(spec.Axes) == 0 {
		return nil, errNotAdmitted
	}
	n := 1
	for _, a := range spec.Axes {
		zipMismatch := spec.Mode == cbv1.SweepZip && len(a.Values) != len(spec.Axes[0].Values)
		if len(a.Values) == 0 || zipMismatch {
			return nil, errNotAdmitted
		}
		if spec.Mode != cbv1.SweepZip {
			n *= len(a.Values)
		}
	}
	if spec.Mode == cbv1.SweepZip {
		n = len(spec.Axes[0].Values)
	}

	points := make([]Point, n)
	for i := range points {
		values := make([]intstr.IntOrString, len(spec.Axes))
		rest := i
		for a := len(spec.Axes) - 1; a >= 0; a-- {
			axis := spec.Axes[a].Values
			if spec.Mode == cbv1.SweepZip {
				values[a] = axis[i]
				continue
			}
			values[a] = axis[rest%len(axis)]
			rest /= len(axis)
		}
		points[i] = Point{Index: i, Values: values}
	}
	return points, nil
}

// Display renders a value as written, cut to a length that keeps the status table small: a
// CQL statement may be 16 KiB.
func Display(v intstr.IntOrString) string {
	s := v.String()
	if len(s) > maxValueText {
		s = strings.ToValidUTF8(s[:maxValueText-3], "") + "..."
	}
	return s
}

// Strings renders a point's values with Display.
func (p Point) Strings() []string {
	out := make([]string, len(p.Values))
	for i, v := range p.Values {
		out[i] = Display(v)
	}
	return out
}

// Describe names a point for messages: "point 3 (writers.replicas=48, datacenter.size=4)".
func Describe(axes []cbv1.SweepAxis, p Point) string {
	return fmt.Sprintf("point %d (%s)", p.Index, Assignments(axes, p.Strings()))
}

// Assignments joins axis paths and displayed values: "writers.replicas=48, datacenter.size=4".
func Assignments(axes []cbv1.SweepAxis, values []string) string {
	parts := make([]string, 0, len(values))
	for i, v := range values {
		path := fmt.Sprintf("axis%d", i)
		if i < len(axes) {
			path = axes[i].Path
		}
		parts = append(parts, path+"="+v)
	}
	return strings.Join(parts, ", ")
}
