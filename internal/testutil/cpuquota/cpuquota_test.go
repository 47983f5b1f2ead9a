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

// The arithmetic of CFS bandwidth control, fed readings as the loop feeds it: a process that
// would run throughout, read every millisecond of a 20 ms period with a 2 ms quota.
func TestBandwidthHoldsAProcessToItsQuota(t *testing.T) {
	const quota, period = 2 * time.Millisecond, 20 * time.Millisecond
	type readings struct {
		ran     []time.Duration // CPU used before each reading in the period
		overrun time.Duration   // used between the last reading and the period's end
	}
	full := func(n int) []time.Duration { // n readings of a process running throughout
		r := make([]time.Duration, n)
		for i := range r {
			r[i] = time.Millisecond
		}
		return r
	}
	cases := map[string]struct {
		periods  []readings
		want     Stat
		wantSigs []signal
		wantDebt time.Duration
	}{
		"a busy process runs its quota, then stands stopped for the rest of the period": {
			periods: []readings{{ran: full(2)}, {ran: full(2)}},
			want: Stat{Usage: 4 * time.Millisecond, Periods: 2, NrThrottled: 2,
				Throttled: 2 * 18 * time.Millisecond},
			wantSigs: []signal{leave, leave, stopProcess, continueProcess, leave, stopProcess},
		},
		"a process under its quota is never stopped": {
			periods:  []readings{{ran: []time.Duration{500 * time.Microsecond, 0, 500 * time.Microsecond}}},
			want:     Stat{Usage: time.Millisecond, Periods: 1},
			wantSigs: []signal{leave, leave, leave, leave},
		},
		"what ran before a stop took hold is owed to the next period": {
			// 5 ms ran before the first reading (a late poll): 3 ms past the quota.
			periods: []readings{{ran: []time.Duration{5 * time.Millisecond}}, {}, {ran: full(1)}},
			want: Stat{Usage: 6 * time.Millisecond, Periods: 3, NrThrottled: 3,
				Throttled: 19*time.Millisecond + 20*time.Millisecond + 19*time.Millisecond},
			// period 2 has a budget of -1 ms: stopped throughout, and the debt falls to 1 ms;
			// period 3 has 1 ms, which the first reading spends.
			wantSigs: []signal{leave, stopProcess, leave, continueProcess, stopProcess},
		},
		"what a stopped process ran before the stop took hold counts too": {
			periods: []readings{{ran: full(2), overrun: 300 * time.Microsecond}},
			want: Stat{Usage: 2300 * time.Microsecond, Periods: 1, NrThrottled: 1,
				Throttled: 18 * time.Millisecond},
			wantSigs: []signal{leave, leave, stopProcess},
			wantDebt: 300 * time.Microsecond,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := bandwidth{quota: quota}
			var sigs []signal
			start := time.Unix(1_000_000, 0)
			for i, p := range tc.periods {
				at := start.Add(time.Duration(i) * period)
				sigs = append(sigs, b.begin(at))
				for j, cpu := range p.ran {
					sigs = append(sigs, b.use(at.Add(time.Duration(j+1)*time.Millisecond), cpu))
				}
				b.end(at.Add(period), p.overrun)
			}
			if diff := cmp.Diff(tc.want, b.stat); diff != "" {
				t.Errorf("stat (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSigs, sigs); diff != "" {
				t.Errorf("signals (-want +got):\n%s", diff)
			}
			if b.debt != tc.wantDebt {
				t.Errorf("debt %v, want %v", b.debt, tc.wantDebt)
			}
		})
	}
}

// A real process that would use a whole core, held by the real loop, is throttled, and the
// cgroup files say so as the kernel's would; when the limiter stops, the process runs again
// and its cpu.stat matches what Stop returned. What this asserts holds however loaded the
// machine is: how closely the process keeps to its quota depends on how promptly the loop is
// scheduled, and that is TestBandwidthHoldsAProcessToItsQuota's to check, not a clock's.
func TestLimiterThrottlesARealProcess(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })
	dir := t.TempDir()
	before, err := CPU(busy.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Start(busy.Process.Pid, 2*time.Millisecond, 20*time.Millisecond, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the event, not for a time: the first period that ends throttled.
	deadline := time.Now().Add(2 * time.Minute)
	for !throttledOnce(dir) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	st := l.Stop()
	after, err := CPU(busy.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the process used %v; %+v", after-before, st)

	if st.NrThrottled < 1 || st.NrThrottled > st.Periods {
		t.Errorf("%d periods, %d throttled; want some throttled, and no more than there were periods", st.Periods, st.NrThrottled)
	}
	// Usage counts from Start's reading to the last one, made before the process was let go:
	// within what the process used from just before Start to just after Stop.
	if st.Usage <= 0 || st.Usage > after-before {
		t.Errorf("cpu.stat usage %v, want in (0, %v], the process's own CPU time around the limiter", st.Usage, after-before)
	}
	gotMax, _ := os.ReadFile(filepath.Join(dir, "cpu.max"))
	gotStat, _ := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if diff := cmp.Diff([]string{"2000 20000\n", st.text()}, []string{string(gotMax), string(gotStat)}); diff != "" {
		t.Errorf("cgroup files (-want +got):\n%s", diff)
	}
	if state := processState(t, busy.Process.Pid); state == 'T' {
		t.Error("the process was left stopped")
	}
}

// throttledOnce is whether cpu.stat in dir shows a throttled period.
func throttledOnce(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return false
	}
	var usage, periods, throttled int64
	_, err = fmt.Sscanf(string(b), "usage_usec %d\nnr_periods %d\nnr_throttled %d\n", &usage, &periods, &throttled)
	return err == nil && throttled > 0
}

// processState is the state letter of process pid in /proc/PID/stat (R, S, T for stopped...).
func processState(t *testing.T, pid int) byte {
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
