package report_test

import (
	"bytes"
	"image/png"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

func TestGolden(t *testing.T) {
	run, sw := reporttest.Run("ns"), reporttest.Sweep("ns")
	cases := map[string]func(*bytes.Buffer) error{
		"run.txt":    func(b *bytes.Buffer) error { return report.Run(b, run, report.Table) },
		"run.json":   func(b *bytes.Buffer) error { return report.Run(b, run, report.JSON) },
		"run.csv":    func(b *bytes.Buffer) error { return report.Run(b, run, report.CSV) },
		"sweep.txt":  func(b *bytes.Buffer) error { return report.Sweep(b, sw, report.Table) },
		"sweep.json": func(b *bytes.Buffer) error { return report.Sweep(b, sw, report.JSON) },
		"sweep.csv":  func(b *bytes.Buffer) error { return report.Sweep(b, sw, report.CSV) },
	}
	for file, render := range cases {
		t.Run(file, func(t *testing.T) {
			var b bytes.Buffer
			if err := render(&b); err != nil {
				t.Fatal(err)
			}
			reporttest.Golden(t, filepath.Join("testdata", file), b.Bytes())
			var again bytes.Buffer
			if err := render(&again); err != nil || again.String() != b.String() {
				t.Errorf("a second rendering differs (%v)", err)
			}
		})
	}
}

func TestEmptyStatusRenders(t *testing.T) {
	run := &cbv1.BenchmarkRun{}
	run.Name = "new"
	sw := &cbv1.BenchmarkSweep{Spec: cbv1.BenchmarkSweepSpec{Axes: []cbv1.SweepAxis{{Path: "writers.replicas"}}}}
	sw.Name = "new"
	cases := map[string]struct {
		render func(*bytes.Buffer) error
		want   string
	}{
		"run table":   {func(b *bytes.Buffer) error { return report.Run(b, run, report.Table) }, "no results"},
		"run json":    {func(b *bytes.Buffer) error { return report.Run(b, run, report.JSON) }, `"results": null`},
		"run csv":     {func(b *bytes.Buffer) error { return report.Run(b, run, report.CSV) }, "scope,attempts,bytes"},
		"sweep table": {func(b *bytes.Buffer) error { return report.Sweep(b, sw, report.Table) }, "point  writers.replicas  outcome"},
		"sweep json":  {func(b *bytes.Buffer) error { return report.Sweep(b, sw, report.JSON) }, `"table": []`},
		"sweep csv":   {func(b *bytes.Buffer) error { return report.Sweep(b, sw, report.CSV) }, "point,writers.replicas,errors"},
		"run plot": {func(b *bytes.Buffer) error { return report.PlotRun(b, run, report.PNG) },
			"no per-writer results"},
		"sweep plot": {func(b *bytes.Buffer) error { return report.PlotSweep(b, sw, report.PNG) },
			"no succeeded point"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			err := tc.render(&b)
			got := b.String()
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestPlots(t *testing.T) {
	run, sw := reporttest.Run("ns"), reporttest.Sweep("ns")
	zip := reporttest.Sweep("ns")
	zip.Spec.Mode = cbv1.SweepZip
	categorical := reporttest.Sweep("ns")
	categorical.Spec.Axes[0].Path = "datacenter.config.jvm-server-options.max_heap_size"
	for i := range categorical.Status.Table {
		categorical.Status.Table[i].Values[0] = []string{"4G", "7G", "8G", "10G"}[i/2]
	}
	untimed := run.DeepCopy()
	untimed.Status.Results.Timeline = nil
	cases := map[string]func(*bytes.Buffer, report.ImageFormat) error{
		"sweep":             func(b *bytes.Buffer, f report.ImageFormat) error { return report.PlotSweep(b, sw, f) },
		"sweep zip":         func(b *bytes.Buffer, f report.ImageFormat) error { return report.PlotSweep(b, zip, f) },
		"sweep categorical": func(b *bytes.Buffer, f report.ImageFormat) error { return report.PlotSweep(b, categorical, f) },
		"run timeline":      func(b *bytes.Buffer, f report.ImageFormat) error { return report.PlotRun(b, run, f) },
		"run per writer":    func(b *bytes.Buffer, f report.ImageFormat) error { return report.PlotRun(b, untimed, f) },
	}
	viewBox := regexp.MustCompile(`viewBox="0 0 1000 ([0-9.]+)"`)
	for name, plot := range cases {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := plot(&b, report.SVG); err != nil {
				t.Fatal(err)
			}
			svg := b.String()
			m := viewBox.FindStringSubmatch(svg)
			if m == nil || !strings.Contains(svg, `xmlns="http://www.w3.org/2000/svg" width="576pt"`) || !strings.Contains(svg, "ops/s") ||
				!strings.Contains(svg, "<style>svg .grid { stroke: #e6e9ef; }") {
				t.Fatalf("SVG: %.400s", svg)
			}
			h, _ := strconv.ParseFloat(m[1], 64)
			b.Reset()
			if err := plot(&b, report.PNG); err != nil {
				t.Fatal(err)
			}
			if n := b.Len(); n < 10_000 || n > 500_000 {
				t.Errorf("PNG of %d bytes", n)
			}
			img, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			// The first series is drawn, in the page's first colour (#1f77b4).
			drawn := 0
			for y := range img.Bounds().Dy() {
				for x := range img.Bounds().Dx() {
					if r, g, b, _ := img.At(x, y).RGBA(); r>>8 == 0x1f && g>>8 == 0x77 && b>>8 == 0xb4 {
						drawn++
					}
				}
			}
			if drawn < 100 {
				t.Errorf("%d pixels of the first series' colour", drawn)
			}
			// 8 inches at 96 dots an inch, as high as the figure the SVG has.
			if s := img.Bounds().Size(); s.X != 768 || s.Y != int(math.Ceil(768*h/1000-1e-9)) && s.Y != int(math.Round(768*h/1000)) {
				t.Errorf("PNG is %v; the figure is 1000 by %v", s, h)
			}
		})
	}
}

func TestImageFormatOf(t *testing.T) {
	cases := map[string]report.ImageFormat{"a.png": report.PNG, "dir/b.SVG": report.SVG, "c.jpg": "", "d": ""}
	for path, want := range cases {
		got, err := report.ImageFormatOf(path)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%s: %q, %v", path, got, err)
		}
	}
}

// What -o json wrote reads back into an experiment that renders exactly as the one it was
// written from, in every format: an experiment repository can be read without the cluster.
func TestResultsFileReadsBack(t *testing.T) {
	run, sw := reporttest.Run("ns"), reporttest.Sweep("ns")
	for name, c := range map[string]struct {
		obj    any
		render func(any, report.Format, *bytes.Buffer) error
	}{
		"run": {run, func(o any, f report.Format, b *bytes.Buffer) error {
			return report.Run(b, o.(*cbv1.BenchmarkRun), f)
		}},
		"sweep": {sw, func(o any, f report.Format, b *bytes.Buffer) error {
			return report.Sweep(b, o.(*cbv1.BenchmarkSweep), f)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			var file bytes.Buffer
			if err := c.render(c.obj, report.JSON, &file); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(file.String(), `"schemaVersion": 1`) || !strings.Contains(file.String(), `"spec": {`) {
				t.Fatalf("the file does not describe itself:\n%.300s", file.String())
			}
			back, err := report.Read(bytes.NewReader(file.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []report.Format{report.Table, report.JSON, report.CSV} {
				var want, got bytes.Buffer
				if err := c.render(c.obj, f, &want); err != nil {
					t.Fatal(err)
				}
				if err := c.render(back, f, &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.String(), got.String()); diff != "" {
					t.Errorf("%s from the file differs from the cluster's (-cluster +file):\n%s", f, diff)
				}
			}
		})
	}
	for input, want := range map[string]string{
		`{"kind":"Pod"}`: `kind "Pod"`,
		`{"schemaVersion":9,"kind":"BenchmarkRun"}`: "schema version 9",
		`not json`: "not JSON written by -o json",
	} {
		if _, err := report.Read(strings.NewReader(input)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reading %s: %v, want an error saying %q", input, err, want)
		}
	}
}

// A results file keeps the run's cassbench.io/ labels, which cassbench history groups runs
// by, and leaves out the others, which belong to whoever applied the run.
func TestResultsFileKeepsTheExperimentLabel(t *testing.T) {
	run := reporttest.Run("ns")
	run.Labels = map[string]string{cbv1.ExperimentLabel: "nightly-writes", "app.kubernetes.io/instance": "argo-app"}
	var file bytes.Buffer
	if err := report.Run(&file, run, report.JSON); err != nil {
		t.Fatal(err)
	}
	back, err := report.Read(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{cbv1.ExperimentLabel: "nightly-writes"}, back.(*cbv1.BenchmarkRun).Labels); diff != "" {
		t.Errorf("labels read back (-want +got):\n%s", diff)
	}
}
