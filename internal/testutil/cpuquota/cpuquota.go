// Package cpuquota holds a process to a CPU quota the way the kernel's CFS bandwidth control
// holds a cgroup with cpu.max "QUOTA PERIOD": in each period the process runs until its
// threads have used QUOTA of CPU time, then it is stopped (SIGSTOP) until the period ends and
// continued (SIGCONT) with a new quota, as cpulimit does; time used past the quota is owed to
// the next period, so the process averages QUOTA/PERIOD. It writes what a cgroup v2
// directory shows of that, cpu.max and cpu.stat (usage_usec, nr_periods, nr_throttled,
// throttled_usec), into a directory, so a program that reads its own cgroup can be pointed
// there. Tests use it to throttle a writer for real on a shared machine whose cgroups they
// must not write.
//
// The arithmetic (bandwidth) is apart from the loop that reads the clock and the process and
// sends the signals, so that it is tested exactly; how closely a real process is held depends
// on how promptly this loop is scheduled, which a loaded machine delays.
package cpuquota

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// poll is how often the process's CPU time is read: it may overrun its quota by this much per
// running thread, which the next period pays back.
const poll = time.Millisecond

// Stat is what cpu.stat shows.
type Stat struct {
	Usage, Throttled     time.Duration
	Periods, NrThrottled int64
}

// signal is what bandwidth asks of the process after a reading.
type signal int

const (
	leave signal = iota
	stopProcess
	continueProcess
)

// bandwidth is the controller's arithmetic for one process, fed readings by the loop: a
// period's budget is the quota less the debt the last period ran up; the process is stopped
// once it has spent the budget and stays stopped until a period begins with budget left, as
// the kernel keeps a cgroup throttled until a refill leaves it runtime.
type bandwidth struct {
	quota       time.Duration
	budget      time.Duration // this period's: quota less the debt
	spent       time.Duration // CPU used in this period
	debt        time.Duration // used past the budget, owed to the next period
	stopped     bool
	throttledAt time.Time
	stat        Stat
}

// begin opens a period at now: a stopped process with budget left is continued, a running one
// with none left is stopped.
func (b *bandwidth) begin(now time.Time) signal {
	b.budget, b.spent = b.quota-b.debt, 0
	switch {
	case b.stopped && b.budget > 0:
		b.stopped = false
		return continueProcess
	case b.stopped:
		b.throttledAt = now
	case b.budget <= 0:
		b.stopped, b.throttledAt = true, now
		return stopProcess
	}
	return leave
}

// use counts cpu, the CPU time the process used since the last reading, and stops the process
// once its budget is spent.
func (b *bandwidth) use(now time.Time, cpu time.Duration) signal {
	b.spent += cpu
	if b.stopped || b.spent < b.budget {
		return leave
	}
	b.stopped, b.throttledAt = true, now
	return stopProcess
}

// end closes the period at now, cpu being what the process used since the last reading (what
// it ran before a stop took hold).
func (b *bandwidth) end(now time.Time, cpu time.Duration) {
	b.spent += cpu
	if b.stopped {
		b.stat.NrThrottled++
		b.stat.Throttled += now.Sub(b.throttledAt)
	}
	b.debt = max(b.spent-b.budget, 0)
	b.stat.Periods++
	b.stat.Usage += b.spent
	b.spent = 0
}

// Limiter holds one process to its quota until Stop.
type Limiter struct {
	pid    int
	dir    string
	period time.Duration
	bw     bandwidth
	stop   chan struct{}
	done   chan Stat
}

// Start writes cpu.max into dir and holds process pid to quota CPU time in every period.
func Start(pid int, quota, period time.Duration, dir string) (*Limiter, error) {
	if quota <= 0 || period <= 0 {
		return nil, fmt.Errorf("cpuquota: quota %v and period %v must be positive", quota, period)
	}
	cpuMax := fmt.Sprintf("%d %d\n", quota.Microseconds(), period.Microseconds())
	if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(cpuMax), 0o644); err != nil {
		return nil, fmt.Errorf("writing cpu.max: %w", err)
	}
	l := &Limiter{pid: pid, dir: dir, period: period, bw: bandwidth{quota: quota},
		stop: make(chan struct{}), done: make(chan Stat, 1)}
	if err := l.write(Stat{}); err != nil {
		return nil, err
	}
	used, err := CPU(pid)
	if err != nil {
		return nil, err
	}
	go l.run(used)
	return l, nil
}

// Stop ends the limiting, continues the process if it is stopped, and returns the last Stat:
// its Usage counts the CPU time the process used from Start until the process was continued.
func (l *Limiter) Stop() Stat {
	close(l.stop)
	return <-l.done
}

// run is the loop: it reads the process's CPU time every poll and carries out what bandwidth
// decides.
func (l *Limiter) run(used time.Duration) {
	// since is the CPU time used since the last reading, and false once the process is gone.
	since := func() (time.Duration, bool) {
		cpu, err := CPU(l.pid)
		if err != nil {
			return 0, false
		}
		d := cpu - used
		used = cpu
		return d, true
	}
	defer func() {
		// The last part period counts its usage, read before the process may run again.
		if cpu, ok := since(); ok {
			l.bw.stat.Usage += l.bw.spent + cpu
			_ = l.write(l.bw.stat)
		}
		_ = syscall.Kill(l.pid, syscall.SIGCONT)
		l.done <- l.bw.stat
	}()
	for start := time.Now(); ; start = start.Add(l.period) {
		l.send(l.bw.begin(time.Now()))
		for end := start.Add(l.period); time.Now().Before(end); {
			select {
			case <-l.stop:
				return
			case <-time.After(min(poll, time.Until(end))):
			}
			cpu, ok := since()
			if !ok {
				return
			}
			l.send(l.bw.use(time.Now(), cpu))
		}
		cpu, ok := since()
		if !ok {
			return
		}
		l.bw.end(time.Now(), cpu)
		if err := l.write(l.bw.stat); err != nil {
			return
		}
	}
}

func (l *Limiter) send(s signal) {
	switch s {
	case stopProcess:
		_ = syscall.Kill(l.pid, syscall.SIGSTOP)
	case continueProcess:
		_ = syscall.Kill(l.pid, syscall.SIGCONT)
	}
}

// write replaces cpu.stat in one rename, so that a reader never sees half of it.
func (l *Limiter) write(st Stat) error {
	tmp := filepath.Join(l.dir, ".cpu.stat.tmp")
	if err := os.WriteFile(tmp, []byte(st.text()), 0o644); err != nil {
		return fmt.Errorf("writing cpu.stat: %w", err)
	}
	return os.Rename(tmp, filepath.Join(l.dir, "cpu.stat"))
}

// text is st as cgroup v2's cpu.stat shows it.
func (st Stat) text() string {
	return fmt.Sprintf("usage_usec %d\nnr_periods %d\nnr_throttled %d\nthrottled_usec %d\n",
		st.Usage.Microseconds(), st.Periods, st.NrThrottled, st.Throttled.Microseconds())
}

// CPU is the CPU time the threads of process pid have run so far, from each thread's
// /proc/PID/task/TID/schedstat in nanoseconds (/proc/PID/stat counts in 10 ms ticks, a
// large part of a quota). A thread that has exited no longer counts.
func CPU(pid int) (time.Duration, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("reading the threads of process %d: %w", pid, err)
	}
	var total time.Duration
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat"))
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("reading thread %s of process %d: %w", task.Name(), pid, err)
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("thread %s of process %d: schedstat %q: %w", task.Name(), pid, b, err)
		}
		total += time.Duration(ns)
	}
	return total, nil
}
