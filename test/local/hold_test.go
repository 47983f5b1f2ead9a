package local

import (
	"testing"
	"time"
)

func TestCPUList(t *testing.T) {
	for in, want := range map[string][]int{"1": {1}, "0,2-3": {0, 2, 3}, "5-5": {5}} {
		set, err := cpuList(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if set.Count() != len(want) {
			t.Errorf("%q: %d CPUs, want %v", in, set.Count(), want)
		}
		for _, c := range want {
			if !set.IsSet(c) {
				t.Errorf("%q: CPU %d not in the set", in, c)
			}
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1,", "2048"} {
		if _, err := cpuList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The CPU shares of a window: per kind of process, a process that started in it whole, one
// whose PID was reused by another kind whole, and the ones under half a percent left out.
// TestCFSQuota: the period is 2 ms unless the quota would be under the kernel's 1 ms.
func TestCFSQuota(t *testing.T) {
	for _, tc := range []struct {
		cores         float64
		period, quota int
	}{{0.5, 2000, 1000}, {2, 2000, 4000}, {0.3, 3334, 1000}, {0.25, 4000, 1000}} {
		if period, quota := cfsQuota(tc.cores); period != tc.period || quota != tc.quota {
			t.Errorf("%g cores: %d us every %d us, want %d every %d", tc.cores, quota, period, tc.quota, tc.period)
		}
	}
}

func TestCPUSharesSince(t *testing.T) {
	t0 := time.Unix(1000, 0)
	from := cpuShares{at: t0, ticks: map[int]procTicks{
		1: {"kube-apiserver", 500}, 2: {"cassbench-write", 100}, 3: {"etcd", 50}, 4: {"manager", 7},
	}}
	to := cpuShares{at: t0.Add(10 * time.Second), ticks: map[int]procTicks{
		1: {"kube-apiserver", 600}, 2: {"cassbench-write", 700}, 3: {"etcd", 50},
		4: {"cassbench-write", 200}, 5: {"manager", 40},
	}}
	want := "0.94 cores in all over 10 s, cassbench-write 0.80, kube-apiserver 0.10, manager 0.04"
	if got := to.since(from); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	r := &cpuRecorder{samples: []cpuShares{from, to}}
	if got := r.during(t0, t0.Add(10*time.Second)); got != want {
		t.Errorf("during the whole: %q", got)
	}
	if got := r.during(t0.Add(time.Second), t0.Add(10*time.Second)); got != "not sampled" {
		t.Errorf("during a window with one sample: %q", got)
	}
}
