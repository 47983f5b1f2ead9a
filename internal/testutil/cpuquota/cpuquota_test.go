package cpuquota

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A process that would use a whole core is held to its quota of 2 ms every 20 ms, is
// throttled in the periods it used that up, and the cgroup files say so as the kernel's would.
// The quota is small so that the process reaches it in some periods even on a machine loaded
// by the other packages' tests.
func TestLimiterHoldsABusyProcessToItsQuota(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })
	dir := t.TempDir()
	const quota, period, run = 2 * time.Millisecond, 20 * time.Millisecond, 2 * time.Second
	before, err := CPU(busy.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Start(busy.Process.Pid, quota, period, dir)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(run)
	st := l.Stop()
	after, err := CPU(busy.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	used := after - before
	t.Logf("used %v in %v; %+v", used, run, st)

	// At most the quota of every period begun, plus the last poll's overrun, which a loaded
	// machine may make late (50 ms allowed): a tenth of the 2 s the loop would use unheld.
	if limit := (run/period+1)*quota + 50*time.Millisecond; used > limit || used <= 0 {
		t.Errorf("the process used %v of CPU in %v, want (0, %v]", used, run, limit)
	}
	if st.Periods < 90 || st.Periods > 110 || st.NrThrottled < 1 || st.NrThrottled > st.Periods {
		t.Errorf("%d periods, %d throttled; want about 100, and some throttled", st.Periods, st.NrThrottled)
	}
	if d := st.Usage - used; d < -poll-quota || d > poll+quota {
		t.Errorf("cpu.stat usage %v, the process's own CPU time %v", st.Usage, used)
	}
	gotMax, _ := os.ReadFile(filepath.Join(dir, "cpu.max"))
	gotStat, _ := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	wantStat := fmt.Sprintf("usage_usec %d\nnr_periods %d\nnr_throttled %d\nthrottled_usec %d\n",
		st.Usage.Microseconds(), st.Periods, st.NrThrottled, st.Throttled.Microseconds())
	if diff := cmp.Diff([]string{"2000 20000\n", wantStat}, []string{string(gotMax), string(gotStat)}); diff != "" {
		t.Errorf("cgroup files (-want +got):\n%s", diff)
	}
	if state := busyState(t, busy.Process.Pid); state == 'T' {
		t.Error("the process was left stopped")
	}
}

// busyState is the state letter of process pid in /proc/PID/stat (R, S, T for stopped...).
func busyState(t *testing.T, pid int) byte {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2]
		}
	}
	t.Fatalf("unreadable stat %q", b)
	return 0
}
