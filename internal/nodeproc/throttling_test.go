package nodeproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The counters come from the cgroup on the process's path that sets the smallest quota.
func TestThrottlingReadsTheQuotasGroup(t *testing.T) {
	root, proc := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "pods/cpu.max"), "400000 100000\n")
	write(filepath.Join(root, "pods/cpu.stat"), "usage_usec 9\nnr_periods 1000\nnr_throttled 1\nthrottled_usec 5\n")
	write(filepath.Join(root, "pods/node1/cpu.max"), "150000 100000\n")
	write(filepath.Join(root, "pods/node1/cpu.stat"), "usage_usec 9\nnr_periods 200\nnr_throttled 50\nthrottled_usec 5\n")
	write(filepath.Join(root, "free/cpu.max"), "max 100000\n")
	write(filepath.Join(proc, "7/cgroup"), "0::/pods/node1\n")
	write(filepath.Join(proc, "8/cgroup"), "0::/free\n")
	oldRoot, oldProc := cgroupRoot, procRoot
	cgroupRoot, procRoot = root, proc
	defer func() { cgroupRoot, procRoot = oldRoot, oldProc }()

	got, ok := (&Process{PID: 7}).Throttling()
	if !ok || got != (Throttling{Periods: 200, Throttled: 50}) {
		t.Errorf("node under pods/node1's quota: %+v %v, want node1's counters", got, ok)
	}
	if got, ok := (&Process{PID: 8}).Throttling(); ok {
		t.Errorf("a node under no quota read %+v", got)
	}
	if pct, ok := ThrottledPercent(Throttling{200, 50}, Throttling{300, 125}); !ok || pct != 75 {
		t.Errorf("75 of 100 periods throttled read %d%% %v", pct, ok)
	}
	if _, ok := ThrottledPercent(Throttling{200, 50}, Throttling{200, 50}); ok {
		t.Error("no period passed, yet a share was given")
	}
}

// A busy process in a cgroup v1 group of this machine held to a tenth of a core is
// throttled, and Throttling reads it from the group. Skipped where the cpu hierarchy of v1 is
// not writable (not root, or cgroup v2).
func TestThrottlingOfARealQuota(t *testing.T) {
	parent := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat(filepath.Join(parent, "cpu.cfs_quota_us")); err != nil {
		t.Skip("no cgroup v1 cpu hierarchy at", parent)
	}
	group := filepath.Join(parent, fmt.Sprintf("cassbench-throttling-test-%d", os.Getpid()))
	if err := os.Mkdir(group, 0o755); err != nil {
		t.Skip("cannot make a cgroup here:", err)
	}
	busy := exec.Command("sh", "-c", "while :; do :; done")
	t.Cleanup(func() {
		if busy.Process != nil {
			_ = busy.Process.Kill()
			_ = busy.Wait()
		}
		if err := os.Remove(group); err != nil {
			t.Errorf("removing %s: %v", group, err)
		}
	})
	for file, v := range map[string]string{"cpu.cfs_period_us": "10000", "cpu.cfs_quota_us": "1000"} {
		if err := os.WriteFile(filepath.Join(group, file), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(group, "cgroup.procs"), []byte(fmt.Sprint(busy.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Process{PID: busy.Process.Pid}
	if m := p.Allowance().QuotaMillicores; m != 100 {
		t.Fatalf("quota read %dm, want 100m", m)
	}
	from, ok := p.Throttling()
	if !ok {
		t.Fatal("the group's counters were not read")
	}
	// Periods pass only while the process runs; wait for some, however slow the machine.
	deadline := time.Now().Add(time.Minute)
	for {
		to, _ := p.Throttling()
		if to.Periods-from.Periods >= 20 || time.Now().After(deadline) {
			pct, ok := ThrottledPercent(from, to)
			t.Logf("%d periods, %d throttled (%d%%)", to.Periods-from.Periods, to.Throttled-from.Throttled, pct)
			if !ok || to.Throttled <= from.Throttled {
				t.Errorf("a busy loop held to 100m was not seen throttled: %+v to %+v", from, to)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
