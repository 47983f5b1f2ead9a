package nodeproc

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCountCPUList(t *testing.T) {
	tests := map[string]int{"0": 1, "0-1": 2, "0-3,6,8-9": 7, "": 0, "3-1": 0, "x": 0, "0,2": 2}
	for list, want := range tests {
		if got := countCPUList(list); got != want {
			t.Errorf("countCPUList(%q) = %d, want %d", list, got, want)
		}
	}
}

// The quota is the smallest on the cgroup's path, v2's cpu.max or v1's cfs files.
func TestCgroupQuota(t *testing.T) {
	root := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cpu.max", "max 100000\n")
	write("pods/cpu.max", "400000 100000\n")
	write("pods/node1/cpu.max", "150000 100000\n")
	write("pods/node2/cpu.max", "max 100000\n")
	write("cpu,cpuacct/kube/cpu.cfs_quota_us", "50000\n")
	write("cpu,cpuacct/kube/cpu.cfs_period_us", "100000\n")
	write("cpu,cpuacct/free/cpu.cfs_quota_us", "-1\n")
	write("cpu,cpuacct/free/cpu.cfs_period_us", "100000\n")
	old := cgroupRoot
	cgroupRoot = root
	defer func() { cgroupRoot = old }()
	tests := map[string]int64{
		"0::/pods/node1\n": 1500,
		"0::/pods/node2\n": 4000, // the parent's quota bounds it
		"0::/\n":           0,
		"4:memory:/x\n3:cpu,cpuacct:/kube\n0::/\n": 500,
		"3:cpu,cpuacct:/free\n":                    0,
		"garbage":                                  0,
	}
	for groups, want := range tests {
		if got := cgroupQuota(groups); got != want {
			t.Errorf("cgroupQuota(%q) = %d, want %d", groups, got, want)
		}
	}
}

func TestAllowanceMillicores(t *testing.T) {
	tests := []struct {
		a    Allowance
		want int64
	}{
		{Allowance{Cores: 2}, 2000},
		{Allowance{Cores: 8, QuotaMillicores: 1500}, 1500},
		{Allowance{Cores: 1, QuotaMillicores: 4000}, 1000},
		{Allowance{QuotaMillicores: 700}, 700},
		{Allowance{}, 0},
	}
	for _, tc := range tests {
		if got := tc.a.Millicores(); got != tc.want {
			t.Errorf("%+v.Millicores() = %d, want %d", tc.a, got, tc.want)
		}
	}
}

// This test's own process may run on the cores its affinity allows, which Go reads the same way.
func TestAllowanceOfThisProcess(t *testing.T) {
	p := &Process{PID: os.Getpid()}
	got := p.Allowance()
	if diff := cmp.Diff(runtime.NumCPU(), got.Cores); diff != "" {
		t.Errorf("Allowance().Cores (-runtime.NumCPU +got):\n%s", diff)
	}
}
