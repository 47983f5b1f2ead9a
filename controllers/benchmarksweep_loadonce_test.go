package controllers_test

import (
	"fmt"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// A sweep with loadOnce creates a first run that loads the template's dataset into a keyspace
// it recreates, and later runs that measure that dataset and keep the keyspace.
func TestSweepLoadsOnceAndMeasuresEveryPointOnIt(t *testing.T) {
	ns := env.Namespace(t)
	readyDatacenter(t, ns, "dc1", 1)
	startManager(t, managerConfig(t, ns))

	sw := builders.MakeSweep("once", ns).Axis("writers.replicas", 1, 2).Obj()
	sw.Spec.LoadOnce = true
	sw.Spec.Template.Schema.Recreate = true
	sw.Spec.Template.Workload.Dataset = &cbv1.DatasetSpec{Rows: 5000, Load: true}
	sw.Spec.Template.Workload.WriteRatio = 1
	pl.Create(t, sw)

	want := []cbv1.DatasetSpec{{Rows: 5000, Load: true}, {Rows: 5000}}
	for i, w := range want {
		name := fmt.Sprintf("once-%d-0", i)
		run := waitSweepRun(t, sw, name)
		d := run.Spec.Workload.Dataset
		if d == nil || *d != w || run.Spec.Schema.Recreate != (i == 0) {
			t.Errorf("%s: dataset %+v, recreate %t; want %+v, recreate %t", name, d, run.Spec.Schema.Recreate, w, i == 0)
		}
		// The template leaves the datacenter as it is: nothing to patch, setup comes first.
		finishRun(t, run, run.Spec.Writers.Replicas, 1000, false)
	}
}
