package history

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/changepoint"
	"github.com/cassbench/cassbench/internal/report/reporttest"
)

var day0 = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)

// result is a succeeded run measured on day (days after day0) at ops/s and write p99.
func result(name string, day int, ops, p99 int64) *cbv1.BenchmarkRun {
	run := reporttest.Run("ns")
	run.Name = name
	r := run.Status.Results
	r.WindowStart = metav1.NewTime(day0.Add(time.Duration(day) * 24 * time.Hour))
	r.OpsPerSecond = ops
	r.Writes.Response.P99 = p99
	return run
}

func TestExperimentOf(t *testing.T) {
	cases := map[string]struct {
		name, label, want string
	}{
		"label wins":         {"writers-24-r1", "nightly", "nightly"},
		"repeat":             {"writers-24-r1", "", "writers-24"},
		"date":               {"nightly-writes-20261127", "", "nightly-writes"},
		"sweep point repeat": {"sweep-a-3-1", "", "sweep-a-3"},
		"generateName":       {"nightly-x7k2q", "", "nightly"},
		"a word":             {"writers-baseline", "", "writers-baseline"},
		"no dash":            {"writers", "", "writers"},
		"leading dash":       {"-1", "", "-1"},
		"six letters":        {"nightly-x7k2qz", "", "nightly-x7k2qz"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := result(tc.name, 0, 1, 1)
			if tc.label != "" {
				run.Labels = map[string]string{cbv1.ExperimentLabel: tc.label}
			}
			if got := ExperimentOf(run); got != tc.want {
				t.Errorf("ExperimentOf(%s) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

func TestFromRun(t *testing.T) {
	run := result("w-1", 2, 12345, 3000)
	got, ok := FromRun(run, "results/w-1.json", "abc")
	if !ok {
		t.Fatal("a succeeded run is no point of the series")
	}
	want := Run{Name: "w-1", Experiment: "w", Time: day0.Add(48 * time.Hour), Source: "results/w-1.json", Commit: "abc",
		Values: map[string]float64{"ops_per_second": 12345, "write_p50_us": 412, "write_p99_us": 3000, "write_p999_us": 9871,
			"timeouts_per_operation": 0.000001}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	failed := result("w-2", 3, 1, 1)
	failed.Status.Phase = cbv1.PhaseFailed
	if _, ok := FromRun(failed, "", ""); ok {
		t.Error("a failed run became a point of the series")
	}
	failed.Status.Phase, failed.Status.Results = cbv1.PhaseSucceeded, nil
	if _, ok := FromRun(failed, "", ""); ok {
		t.Error("a run without results became a point of the series")
	}
}

func TestGroupOrdersByTime(t *testing.T) {
	var runs []Run
	for i, n := range []struct {
		name string
		day  int
	}{{"b-3", 3}, {"a-1", 1}, {"b-1", 1}, {"b-2", 2}, {"b-0", 2}} {
		r, _ := FromRun(result(n.name, n.day, int64(i+1), 1), "", "")
		runs = append(runs, r)
	}
	var got [][]string
	for _, s := range Group(runs) {
		var names []string
		for _, r := range s.Runs {
			names = append(names, r.Name)
		}
		got = append(got, append([]string{s.Experiment}, names...))
	}
	want := [][]string{{"a", "a-1"}, {"b", "b-1", "b-0", "b-2", "b-3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// series is 20 nightly runs at 10,000 ops/s and 3 ms p99 (1% noise), then 10 at 9,000 and 3.6 ms.
func series(t *testing.T) Series {
	rng := rand.New(rand.NewPCG(5, 5))
	var runs []Run
	for i := range 30 {
		ops, p99 := 10000.0, 3000.0
		if i >= 20 {
			ops, p99 = 9000, 3600
		}
		noise := func(v float64) int64 { return int64(v * (1 + 0.01*rng.NormFloat64())) }
		r, _ := FromRun(result(fmt.Sprintf("nightly-%02d", i), i, noise(ops), noise(p99)), "", fmt.Sprintf("c%02d", i))
		runs = append(runs, r)
	}
	s := Group(runs)
	if len(s) != 1 {
		t.Fatalf("%d series", len(s))
	}
	return s[0]
}

func TestAnalyzeNamesTheRunsWhereFiguresChanged(t *testing.T) {
	s := series(t)
	if err := s.Analyze(changepoint.Defaults); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range s.Changes {
		if !c.Regression {
			t.Errorf("%s: a regression reported as an improvement", c.Describe())
		}
		got[c.Figure] = c.Run
	}
	if diff := cmp.Diff(map[string]string{"ops/s": "nightly-20", "write p99": "nightly-20"}, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s\n%+v", diff, s.Changes)
	}
	var out bytes.Buffer
	if err := Text(&out, []Series{s}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"experiment nightly: 30 runs, 2026-11-01 03:00:00 to 2026-11-30 03:00:00",
		"nightly-20  2026-11-21 03:00  c20", "ops/s -10.", "at nightly-20 (p = 0.002)", "a regression"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table does not say %q:\n%s", want, text)
		}
	}
	if strings.Count(text, " *") != 2 {
		t.Errorf("want two cells starred where a change starts:\n%s", text)
	}
}

func TestCSV(t *testing.T) {
	s := series(t)
	s.Runs = s.Runs[:2]
	var out bytes.Buffer
	if err := CSV(&out, []Series{s}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := "experiment,run,time,commit,ops_per_second,write_p50_us,write_p99_us,write_p999_us,read_p50_us,read_p99_us,read_p999_us,timeouts_per_operation"
	if lines[0] != want || len(lines) != 3 || !strings.HasPrefix(lines[1], "nightly,nightly-00,2026-11-01T03:00:00Z,c00,") ||
		!strings.HasSuffix(lines[1], ",,,,1e-06") {
		t.Errorf("CSV:\n%s", out.String())
	}
	out.Reset()
	if err := OtavaCSV(&out, s); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != "time,run,commit,ops_per_second,write_p50_us,write_p99_us,write_p999_us,timeouts_per_operation" ||
		!strings.HasPrefix(lines[1], "2026-11-01 03:00:00 +0000,nightly-00,c00,") {
		t.Errorf("Otava CSV (no column a run lacks):\n%s", out.String())
	}
}
