// Package cpuquota holds a process to a CPU quota the way the kernel's CFS bandwidth control
// holds a cgroup with cpu.max "QUOTA PERIOD": in each period the process runs until its
// threads have used QUOTA of CPU time, then it is stopped (SIGSTOP) until the period ends and
// continued (SIGCONT) with a new quota, as cpulimit does; time used past the quota is owed to
// the next period, so the process averages QUOTA/PERIOD. It writes what a cgroup v2
// directory shows of that, cpu.max and cpu.stat (usage_usec, nr_periods, nr_throttled,
// throttled_usec), into a directory, so a program that reads its own cgroup can be pointed
// there. Tests use it to throttle a writer for real on a shared machine whose cgroups they
// must not write.
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

// Limiter holds one process to its quota until Stop.
type Limiter struct {
	pid           int
	dir           string
	quota, period time.Duration
	stop          chan struct{}
	done          chan Stat
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
	l := &Limiter{pid: pid, dir: dir, quota: quota, period: period, stop: make(chan struct{}), done: make(chan Stat, 1)}
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

// Stop ends the limiting, continues the process if it is stopped, and returns the last Stat.
func (l *Limiter) Stop() Stat {
	close(l.stop)
	return <-l.done
}

// run is the bandwidth controller: one pass per period. A period whose budget the debt
// has used up keeps the process stopped throughout, as the kernel keeps a cgroup throttled
// until a refill leaves it runtime.
func (l *Limiter) run(used time.Duration) {
	var st Stat
	var debt, spent time.Duration
	stopped := false
	// account adds the CPU time used since the last reading to spent; false once the
	// process is gone.
	account := func() bool {
		cpu, err := CPU(l.pid)
		if err != nil {
			return false
		}
		spent, used = spent+cpu-used, cpu
		return true
	}
	defer func() {
		_ = syscall.Kill(l.pid, syscall.SIGCONT)
		if account() {
			st.Usage += spent
			_ = l.write(st)
		}
		l.done <- st
	}()
	for start := time.Now(); ; start = start.Add(l.period) {
		budget := l.quota - debt
		if stopped && budget > 0 {
			_ = syscall.Kill(l.pid, syscall.SIGCONT)
			stopped = false
		}
		throttledAt, end := start, start.Add(l.period)
		spent = 0
		for now := time.Now(); now.Before(end); now = time.Now() {
			select {
			case <-l.stop:
				return
			case <-time.After(min(poll, end.Sub(now))):
			}
			if stopped {
				continue
			}
			if !account() {
				return // the process is gone
			}
			if spent >= budget {
				_ = syscall.Kill(l.pid, syscall.SIGSTOP)
				stopped, throttledAt = true, time.Now()
			}
		}
		if stopped {
			st.NrThrottled++
			st.Throttled += time.Since(throttledAt)
		}
		// Time used past the budget (the last poll's overrun, and what the process ran
		// before the stop took hold) is owed to the next period.
		if !account() {
			return
		}
		debt = max(spent-budget, 0)
		st.Periods++
		st.Usage += spent
		spent = 0
		if err := l.write(st); err != nil {
			return
		}
	}
}

// write replaces cpu.stat in one rename, so that a reader never sees half of it.
func (l *Limiter) write(st Stat) error {
	text := fmt.Sprintf("usage_usec %d\nnr_periods %d\nnr_throttled %d\nthrottled_usec %d\n",
		st.Usage.Microseconds(), st.Periods, st.NrThrottled, st.Throttled.Microseconds())
	tmp := filepath.Join(l.dir, ".cpu.stat.tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return fmt.Errorf("writing cpu.stat: %w", err)
	}
	return os.Rename(tmp, filepath.Join(l.dir, "cpu.stat"))
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
