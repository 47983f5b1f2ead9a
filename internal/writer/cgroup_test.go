package writer

import (
	"os"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseCPUMax(t *testing.T) {
	tests := map[string]int64{"max 100000": 0, "200000 100000": 2000, "50000 100000\n": 500, "": 0, "x 1": 0}
	for in, want := range tests {
		if got := parseCPUMax(in); got != want {
			t.Errorf("parseCPUMax(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestParseCPUStat(t *testing.T) {
	p, th := parseCPUStat("usage_usec 123\nnr_periods 400\nnr_throttled 100\nthrottled_usec 9\n")
	if p != 400 || th != 100 {
		t.Errorf("periods %d, throttled %d", p, th)
	}
}

func TestQuantileOfDelta(t *testing.T) {
	buckets := []float64{0, 0.001, 0.01, 0.1}
	before := &metrics.Float64Histogram{Counts: []uint64{5, 0, 0}, Buckets: buckets}
	after := &metrics.Float64Histogram{Counts: []uint64{100, 5, 1}, Buckets: buckets}
	// 95 + 5 + 1 new observations: the 99th of 101 is in the second bucket.
	if got := quantileOfDelta(before, after, 0.99); got != 0.01 {
		t.Errorf("p99 = %v, want 0.01", got)
	}
	if got := quantileOfDelta(after, after, 0.99); got != 0 {
		t.Errorf("p99 of nothing = %v", got)
	}
}

// The writer reads its quota and throttling where a container sees its cgroup: cpu.max and
// cpu.stat under v2, the cpu controller's cpu.cfs_quota_us, cpu.cfs_period_us and cpu.stat
// under v1 (a pod on a cgroup v1 node).
func TestCgroupReadings(t *testing.T) {
	type reading struct{ Limit, Periods, Throttled int64 }
	const stat = "nr_periods 400\nnr_throttled 100\nthrottled_time 9\n"
	tests := map[string]struct {
		files map[string]string
		want  reading
	}{
		"v2": {files: map[string]string{"cpu.max": "50000 100000\n", "cpu.stat": "usage_usec 1\n" + stat},
			want: reading{500, 400, 100}},
		"v2 without a quota": {files: map[string]string{"cpu.max": "max 100000\n", "cpu.stat": stat},
			want: reading{0, 400, 100}},
		"v1": {files: map[string]string{"cpu/cpu.cfs_quota_us": "150000\n", "cpu/cpu.cfs_period_us": "100000\n", "cpu/cpu.stat": stat},
			want: reading{1500, 400, 100}},
		"v1 without a quota": {files: map[string]string{"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n", "cpu/cpu.stat": stat},
			want: reading{0, 400, 100}},
		"neither": {want: reading{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for path, text := range tc.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			defer SetCgroupDir(dir)()
			var got reading
			got.Limit = cpuLimit()
			got.Periods, got.Throttled = throttling()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("readings (-want +got):\n%s", diff)
			}
		})
	}
}

// The window's CPU figures count the periods of the window alone: the cgroup's cpu.stat
// counts from the container's start.
func TestCPUMeterCountsTheWindowsPeriods(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "cpu"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cpu.cfs_quota_us", "50000\n")
	write("cpu.cfs_period_us", "100000\n")
	write("cpu.stat", "nr_periods 40\nnr_throttled 10\nthrottled_time 9\n")
	defer SetCgroupDir(dir)()
	m := startCPU(time.Now)
	write("cpu.stat", "nr_periods 240\nnr_throttled 15\nthrottled_time 99\n")
	got := m.stop()
	want := [4]int64{500, 200, 5, 2} // limit, periods, throttled periods, percent
	if diff := cmp.Diff(want, [4]int64{got.LimitMillicores, got.Periods, got.ThrottledPeriods, got.ThrottledPercent}); diff != "" {
		t.Errorf("limit, periods, throttled, percent (-want +got):\n%s", diff)
	}
}
