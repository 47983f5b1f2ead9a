package report

import (
	"bytes"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// steadyTimeline is a 15 s window at 500 ops/s in intervals of iv milliseconds, as status
// gives it: every full interval at 500 ops/s, and the last, partial one with its operations
// (500 a second of it) over the time it covered.
func steadyTimeline(iv int64) *cbv1.Timeline {
	tl := &cbv1.Timeline{IntervalMillis: iv}
	for from := int64(0); from < 15_000; from += iv {
		covered := min(iv, 15_000-from)
		ops := 500 * covered / 1000
		tl.Points = append(tl.Points, cbv1.TimelinePoint{OffsetMillis: from, Operations: ops, OpsPerSecond: ops * 1000 / covered, P99Micros: 2000})
	}
	return tl
}

func TestStretches(t *testing.T) {
	s := func(from, to, ops float64) stretch {
		return stretch{from: from, to: to, opsPerSecond: ops, p99Millis: 2}
	}
	tests := map[string]struct {
		tl   *cbv1.Timeline
		want []stretch
		end  float64
	}{
		// The last second of a 15 s window in 2 s intervals: 500 operations over 1 s.
		"2 s intervals": {tl: steadyTimeline(2000), end: 15,
			want: []stretch{s(0, 2, 500), s(2, 4, 500), s(4, 6, 500), s(6, 8, 500), s(8, 10, 500), s(10, 12, 500), s(12, 14, 500), s(14, 15, 500)}},
		// 10 s intervals: the last covers 5 s, half an interval, and is drawn on its own.
		"10 s intervals": {tl: steadyTimeline(10_000), end: 15, want: []stretch{s(0, 10, 500), s(10, 15, 500)}},
		// The drain after a 15 s window in 1 s intervals: 7 operations in 6 ms are 1,167
		// ops/s in status; drawn joined to the second before, 868 + 7 in 1.006 s.
		"a sliver at the end": {
			tl: &cbv1.Timeline{IntervalMillis: 1000, Points: []cbv1.TimelinePoint{
				{OffsetMillis: 13_000, Operations: 941, OpsPerSecond: 941, P99Micros: 2000},
				{OffsetMillis: 14_000, Operations: 868, OpsPerSecond: 868, P99Micros: 1000},
				{OffsetMillis: 15_000, Operations: 7, OpsPerSecond: 1167, P99Micros: 2000}}},
			end:  15.006,
			want: []stretch{s(13, 14, 941), s(14, 15.006, 875_000.0/1006)}},
		// An interval with no operations covers its whole interval: nothing tells it shorter.
		"an empty last interval": {
			tl: &cbv1.Timeline{IntervalMillis: 2000, Points: []cbv1.TimelinePoint{
				{OffsetMillis: 0, Operations: 1000, OpsPerSecond: 500, P99Micros: 2000},
				{OffsetMillis: 2000, P99Micros: 2000}}},
			end:  4,
			want: []stretch{s(0, 2, 500), s(2, 4, 0)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, end := stretches(tc.tl)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(stretch{})); diff != "" || end != tc.end {
				t.Errorf("end %v, want %v; stretches (-want +got):\n%s", end, tc.end, diff)
			}
		})
	}
}

// The time axis ends with the window: a 15 s window's axis ends at 15 s with its ticks
// inside it, where it used to run to the next round tick, 16 or 20 s.
func TestTimelineAxisEndsWithTheWindow(t *testing.T) {
	for iv, ticks := range map[int64][]string{2000: {"0", "2", "4", "6", "8", "10", "12", "14"}, 10_000: {"0", "2", "4", "6", "8", "10", "12", "14"}} {
		run := &cbv1.BenchmarkRun{}
		run.Name = "r"
		run.Status.Results = &cbv1.Results{Timeline: steadyTimeline(iv)}
		f, ok := timelineFigure([]*cbv1.BenchmarkRun{run})
		var got []string
		for _, tk := range f.x.ticks {
			got = append(got, tk.label)
		}
		if !ok || f.x.lo != 0 || f.x.hi != 15 || !cmp.Equal(got, ticks) {
			t.Errorf("%d ms intervals: axis %v..%v ticks %v, want 0..15 ticks %v", iv, f.x.lo, f.x.hi, got, ticks)
		}
		last := f.panels[0].lines[0].points[len(f.panels[0].lines[0].points)-1]
		if want := map[int64][2]float64{2000: {14.5, 500}, 10_000: {12.5, 500}}[iv]; last != want {
			t.Errorf("%d ms intervals: last point %v, want %v (the middle of the time it covered, its rate)", iv, last, want)
		}
	}
}

// A real 15 s run (cassbench run, two writers at a target of 1,000 ops/s on one local node
// of a loaded machine): its window is 15,006 ms and its timeline ends with 7 operations in
// the last 6 ms. The page's axis ends at 15.006 s, the drain is joined to the last second
// in the chart, the --plot file and the terminal alike, and no interval is drawn as a fall.
func TestARealRunsTimeline(t *testing.T) {
	data, err := os.ReadFile("testdata/run-15s.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	run := doc.(*cbv1.BenchmarkRun)
	tl := run.Status.Results.Timeline
	if n, last := len(tl.Points), tl.Points[len(tl.Points)-1]; n != 16 || last.Operations != 7 || last.OpsPerSecond != 1167 {
		t.Fatalf("the fixture's timeline changed: %d points, last %+v", n, last)
	}
	f, _ := timelineFigure([]*cbv1.BenchmarkRun{run})
	if f.x.hi != 15.006 {
		t.Errorf("the axis ends at %v s, want 15.006 (the window)", f.x.hi)
	}
	ops := f.panels[0].lines[0].points
	if len(ops) != 15 || ops[14] != [2]float64{14.503, 875_000.0 / 1006} {
		t.Errorf("%d points, last %v; want 15, the last second and the drain at %v ops/s", len(ops), ops[len(ops)-1], 875_000.0/1006)
	}
	// The --plot file is the page's figure: the same throughput line, point for point.
	var file bytes.Buffer
	if err := PlotRun(&file, run, SVG); err != nil {
		t.Fatal(err)
	}
	polyline := regexp.MustCompile(`<polyline class="series" data-series="run15"[^>]*>`)
	page := polyline.FindAllString(string(f.svg()), -1)
	if got := polyline.FindAllString(file.String(), -1); len(page) != 2 || !cmp.Equal(got, page) {
		t.Errorf("the --plot file's lines %q, the page's %q", got, page)
	}
	spark := timelineSparkline(tl, func(s stretch) float64 { return s.opsPerSecond })
	if got := strings.TrimSpace(spark); got != "▁▃▆▁▃▆▄▅▆▇█▆▇▇▇ (max 1006)" {
		t.Errorf("the terminal's sparkline is %q", got)
	}
}

func TestSpanAxisAndRoundAxis(t *testing.T) {
	tests := map[string]struct {
		got        axis
		hi         float64
		tickLabels []string
	}{
		"a 15 s window":           {got: spanAxis(15, ""), hi: 15, tickLabels: []string{"0", "2", "4", "6", "8", "10", "12", "14"}},
		"a 15.006 s window":       {got: spanAxis(15.006, ""), hi: 15.006, tickLabels: []string{"0", "2", "4", "6", "8", "10", "12", "14"}},
		"an hour":                 {got: spanAxis(3600, ""), hi: 3600, tickLabels: []string{"0", "500", "1000", "1500", "2000", "2500", "3000", "3500"}},
		"throughput to a round":   {got: roundAxis(1050, ""), hi: 1500, tickLabels: []string{"0", "500", "1000", "1500"}},
		"latency in milliseconds": {got: roundAxis(0.7, ""), hi: 0.8, tickLabels: []string{"0", "0.2", "0.4", "0.6", "0.8"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var labels []string
			for _, tk := range tc.got.ticks {
				labels = append(labels, tk.label)
			}
			if tc.got.hi != tc.hi || !cmp.Equal(labels, tc.tickLabels) {
				t.Errorf("axis to %v ticks %v, want to %v ticks %v", tc.got.hi, labels, tc.hi, tc.tickLabels)
			}
		})
	}
}

// The history's figure: a panel per figure over the runs, on the figure's own round range,
// a dashed rule between the last run before a change and the first after it, and a gap
// where a run did not measure the figure.
func TestSeriesFigure(t *testing.T) {
	f := seriesFigure("nightly", 5, []SeriesPanel{
		{Title: "ops/s", Values: []float64{1000, 1100, math.NaN(), 1200, 1150}, Changes: []int{3}},
		{Title: "p99 (ms)", Values: []float64{3, 3, 3, 3, 3}},
	})
	type got struct {
		X, Y      [2]float64
		Ticks     []string
		Points    [][2]float64
		Rules     []float64
		XTicks    []string
		Panels    int
		SecondLow float64
	}
	labels := func(a axis) (out []string) {
		for _, tk := range a.ticks {
			out = append(out, tk.label)
		}
		return out
	}
	p := f.panels[0]
	g := got{X: [2]float64{f.x.lo, f.x.hi}, Y: [2]float64{p.y.lo, p.y.hi}, Ticks: labels(p.y), Points: p.lines[0].points,
		Rules: p.rules, XTicks: labels(f.x), Panels: len(f.panels), SecondLow: f.panels[1].y.lo}
	// 1,000 to 1,200 padded by a tenth of the range or 2% of the top (24): 976 to 1,224, a
	// span of 248 in steps of 100; 3 throughout padded by 2% (0.06) in steps of 0.05.
	want := got{X: [2]float64{0.5, 5.5}, Y: [2]float64{900, 1300}, Ticks: []string{"900", "1000", "1100", "1200", "1300"},
		Points: [][2]float64{{1, 1000}, {2, 1100}, {4, 1200}, {5, 1150}}, Rules: []float64{3.5},
		XTicks: []string{"1", "2", "3", "4", "5"}, Panels: 2, SecondLow: 2.9}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("history figure (-want +got):\n%s", diff)
	}
}

// A run without a timeline is drawn as a bar per writer, named by its index.
func TestWritersFigure(t *testing.T) {
	run := &cbv1.BenchmarkRun{}
	run.Name = "r"
	run.Status.Results = &cbv1.Results{OpsPerSecond: 3000, PerWriter: []cbv1.WriterResult{{Index: 0, OpsPerSecond: 1000}, {Index: 1, OpsPerSecond: 2000}}}
	f, ok := writersFigure(run)
	if !ok || f.x.lo != -0.5 || f.x.hi != 1.5 || len(f.x.ticks) != 2 || f.x.ticks[1] != (tick{1, "1"}) {
		t.Fatalf("axis %+v", f.x)
	}
	l := f.panels[0].lines[0]
	// 2,000 and 5% of head room, 2,100, in about four steps: steps of 1,000.
	if l.bars == nil || !cmp.Equal(l.points, [][2]float64{{0, 1000}, {1, 2000}}) || f.panels[0].y.hi != 3000 {
		t.Errorf("bars %+v at %v up to %v", l.bars, l.points, f.panels[0].y.hi)
	}
	if _, ok := writersFigure(&cbv1.BenchmarkRun{}); ok {
		t.Error("a run without results has a figure")
	}
}
