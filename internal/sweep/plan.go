package sweep

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/lending"
)

// Observed is what one reconcile read: the sweep, its points and its child runs by name.
type Observed struct {
	Sweep  *cbv1.BenchmarkSweep
	Points []Point
	Runs   map[string]*cbv1.BenchmarkRun
}

// Slot is one run of a sweep: a repeat of a point.
type Slot struct {
	Point, Repeat int
	Name          string
}

// Decision is what the sweep does next.
type Decision struct {
	// Create is the run to create now; nil when a run is still going or the sweep is over.
	Create *Slot
	// Done is true once every run finished, or the sweep stopped on a failure.
	Done bool
	// Stopped is true when a run failed and spec.stopOnFailure ended the sweep.
	Stopped *Slot
}

// Repeats is the sweep's repeat count, as the CRD defaulted it (1 unless set).
func Repeats(sw *cbv1.BenchmarkSweep) int {
	return int(sw.Spec.Repeats)
}

// Slots lists a sweep's runs in the order they run: every repeat of point 0, then point 1.
func Slots(sw *cbv1.BenchmarkSweep, points []Point) []Slot {
	repeats := Repeats(sw)
	out := make([]Slot, 0, len(points)*repeats)
	for _, p := range points {
		for r := range repeats {
			out = append(out, Slot{Point: p.Index, Repeat: r, Name: RunName(sw.Name, p.Index, r)})
		}
	}
	return out
}

// Decide chooses the next step. Runs go one at a time, in order: the next is created only
// once every run of the sweep that exists has its Succeeded condition, so a sweep's runs never
// interleave with each other in their datacenter's queue. A run deleted by hand before the
// sweep ends is created again when its turn comes round.
func Decide(o Observed) Decision {
	busy := false
	for _, run := range o.Runs {
		if !lending.Finished(run) {
			busy = true
		}
	}
	for _, slot := range Slots(o.Sweep, o.Points) {
		run := o.Runs[slot.Name]
		if run == nil {
			if busy {
				return Decision{}
			}
			return Decision{Create: &slot}
		}
		if !lending.Finished(run) {
			return Decision{}
		}
		if o.Sweep.Spec.StopOnFailure && !Succeeded(run) {
			return Decision{Done: true, Stopped: &slot}
		}
	}
	return Decision{Done: true}
}

// Succeeded tells whether a run finished successfully.
func Succeeded(run *cbv1.BenchmarkRun) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, cbv1.ConditionSucceeded)
}

// failureMessage is why a finished run failed.
func failureMessage(run *cbv1.BenchmarkRun) string {
	c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionSucceeded)
	if c == nil || c.Status == metav1.ConditionTrue {
		return ""
	}
	return c.Message
}

// GaveBack tells whether a sweep is done with its datacenter: it holds none (restore
// afterEach), has put it back or given up on that with the reason named, or has finished.
func GaveBack(sw *cbv1.BenchmarkSweep) bool {
	if sw.Spec.Restore != cbv1.RestoreAtEnd || meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionSucceeded) != nil {
		return true
	}
	return lending.Final(meta.FindStatusCondition(sw.Status.Conditions, cbv1.ConditionDatacenterRestored))
}
