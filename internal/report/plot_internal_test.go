package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

func TestSweepSeries(t *testing.T) {
	type line struct {
		Label string
		X     []float64
		Ops   []float64
		Low   []float64
		High  []float64
	}
	zip := reporttest.Sweep("ns")
	zip.Spec.Mode = cbv1.SweepZip
	oneAxis := &cbv1.BenchmarkSweep{
		Spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{{Path: "datacenter.config.jvm-server-options.max_heap_size",
			Values: []intstr.IntOrString{intstr.FromString("4G"), intstr.FromString("7G")}}}},
		Status: cbv1.BenchmarkSweepStatus{Table: []cbv1.SweepPoint{
			{Point: 0, Values: []string{"4G"}, Succeeded: 1, OpsPerSecond: 100, OpsPerSecondMin: 100, OpsPerSecondMax: 100},
			{Point: 1, Values: []string{"7G"}, Outcome: cbv1.PointRunning},
		}},
	}
	cases := map[string]struct {
		sweep   *cbv1.BenchmarkSweep
		ticks   []string
		numeric bool
		lines   []line
	}{
		"a line per value of the second axis; failed points left out": {
			sweep: reporttest.Sweep("ns"), ticks: []string{"12", "24", "48", "64"}, numeric: true,
			lines: []line{
				{"schema.table.profile=ip-by-country", []float64{12, 24, 48}, []float64{8400, 9900, 10800}, []float64{300, 600, 700}, []float64{400, 500, 800}},
				{"schema.table.profile=ip-by-city", []float64{12, 24, 48, 64}, []float64{18100, 24200, 28300, 29600}, []float64{500, 700, 900, 700}, []float64{400, 700, 900, 500}},
			},
		},
		"zip: one line": {
			sweep: zip, ticks: []string{"12", "24", "48", "64"}, numeric: true,
			lines: []line{{"with schema.table.profile", []float64{12, 12, 24, 24, 48, 48, 64},
				[]float64{8400, 18100, 9900, 24200, 10800, 28300, 29600}, []float64{300, 500, 600, 700, 700, 900, 700}, []float64{400, 400, 500, 700, 800, 900, 500}}},
		},
		"categories": {
			sweep: oneAxis, ticks: []string{"4G", "7G"}, numeric: false,
			lines: []line{{"", []float64{0}, []float64{100}, []float64{0}, []float64{0}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ticks, numeric, series := sweepSeries(tc.sweep)
			var lines []line
			for _, s := range series {
				lines = append(lines, line{s.label, s.x, s.ops, s.opsLow, s.opsHigh})
			}
			if diff := cmp.Diff(tc.ticks, ticks); diff != "" {
				t.Errorf("ticks (-want +got):\n%s", diff)
			}
			if numeric != tc.numeric {
				t.Errorf("numeric %v", numeric)
			}
			if diff := cmp.Diff(tc.lines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}
