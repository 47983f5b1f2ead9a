package compare

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/sketch"
	"github.com/cassbench/cassbench/internal/summary"
)

// writerReport is a raw report of a writer that made ok writes in 10 s, at 1 ms but for slow
// ones at 20 ms, with timeouts, on cpu millicores throttled throttled% of periods.
func writerReport(t *testing.T, index int32, ok, slow, timeouts, cpu, throttled int64, failure string) cbv1.WriterReport {
	t.Helper()
	sk := sketch.New()
	sk.AddN(1000, uint64(ok+timeouts-slow))
	sk.AddN(20_000, uint64(slow))
	s := &summary.Summary{Version: summary.Version, Index: index, Writers: 4, Start: 1_000, End: 11_000, SpanMicros: 10_000_000,
		Writes: &summary.Ops{OK: ok, WriteTimeout: timeouts, Response: sk},
		CPU:    &summary.WriterCPU{UsedMillicores: cpu, LimitMillicores: 1000, ThrottledPercent: throttled}, Error: failure}
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return cbv1.WriterReport{Index: index, Summary: string(b)}
}

func runWithReports(reports ...cbv1.WriterReport) *cbv1.BenchmarkRun {
	return &cbv1.BenchmarkRun{Status: cbv1.BenchmarkRunStatus{WriterReports: reports}}
}

func TestWritersOf(t *testing.T) {
	tests := map[string]struct {
		runs []*cbv1.BenchmarkRun
		want Writers
	}{
		"even writers": {
			runs: []*cbv1.BenchmarkRun{runWithReports(writerReport(t, 0, 10_000, 0, 0, 300, 0, ""), writerReport(t, 1, 10_000, 0, 0, 320, 0, ""))},
			want: Writers{Side: "s", Reports: 2, OpsPerSecond: Spread{1000, 1000, 1000}, P99Micros: Spread{1000, 1000, 1000},
				MaxCPUMillicores: 320, CPULimitMillicores: 1000},
		},
		// One starved writer carries the tail: its p99 is the slow one, its rate the lowest.
		"one starved writer": {
			runs: []*cbv1.BenchmarkRun{runWithReports(writerReport(t, 0, 10_000, 0, 0, 300, 0, ""), writerReport(t, 1, 10_000, 0, 0, 310, 0, ""),
				writerReport(t, 2, 2_000, 1_000, 30, 1000, 40, "write timeouts over the error budget"))},
			want: Writers{Side: "s", Reports: 3, OpsPerSecond: Spread{200, 1000, 1000}, P99Micros: Spread{1000, 1000, 20_000},
				WithTimeouts: 1, Failed: 1, MaxCPUMillicores: 1000, CPULimitMillicores: 1000, MaxThrottledPercent: 40},
		},
		// Repeats pool their writers; a row without a stored summary, or one that does not
		// decode, is counted missing.
		"repeats and missing reports": {
			runs: []*cbv1.BenchmarkRun{runWithReports(writerReport(t, 0, 10_000, 0, 0, 300, 0, ""), cbv1.WriterReport{Index: 1}),
				runWithReports(writerReport(t, 0, 20_000, 0, 0, 600, 0, ""), cbv1.WriterReport{Index: 1, Summary: "{"})},
			want: Writers{Side: "s", Reports: 2, Missing: 2, OpsPerSecond: Spread{1000, 2000, 2000}, P99Micros: Spread{1000, 1000, 1000},
				MaxCPUMillicores: 600, CPULimitMillicores: 1000},
		},
		"no reports": {runs: []*cbv1.BenchmarkRun{runWithReports()}, want: Writers{Side: "s"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := WritersOf(Side{Name: "s", Runs: tc.runs})
			// p99 from a sketch at 1% accuracy: round to its bucket's figure before comparing.
			got.P99Micros = Spread{roundTo(got.P99Micros.Min), roundTo(got.P99Micros.Median), roundTo(got.P99Micros.Max)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WritersOf (-want +got):\n%s", diff)
			}
		})
	}
}

// roundTo rounds a sketch's figure to the 1,000 or 20,000 it stands for (within 1%).
func roundTo(v int64) int64 {
	for _, exact := range []int64{1000, 20_000} {
		if v >= exact*99/100 && v <= exact*101/100 {
			return exact
		}
	}
	return v
}

func TestWritersText(t *testing.T) {
	var buf bytes.Buffer
	err := WritersText(&buf, []Writers{
		{Side: "base", Reports: 3, Missing: 1, OpsPerSecond: Spread{200, 1000, 1010}, P99Micros: Spread{990, 1000, 20_100},
			WithTimeouts: 1, Failed: 1, MaxCPUMillicores: 1000, CPULimitMillicores: 1000, MaxThrottledPercent: 40},
		{Side: "old", Missing: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "writers of base (3 raw reports, 1 missing): ops/s each 200 to 1010 (median 1000); p99 each 990us to 20100us (median 1000us); " +
		"1 with timeouts, 1 failed; CPU up to 1000 millicores of 1000, throttled up to 40%\n" +
		"writers of old: no raw report (2 writers without one)\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WritersText (-want +got):\n%s", diff)
	}
}
