package local

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on every Linux this
// environment runs on).
const clockTicks = 100

// cpuShares is what every process of this environment used of the CPU: its user and system
// time, and that of the children it waited for (a writer pod's process that ended counts in
// its parent's), by process name, at one moment.
type cpuShares struct {
	at    time.Time
	ticks map[int]procTicks
}

type procTicks struct {
	name  string
	ticks int64
}

// readCPUShares reads every process below this one, and this one.
func readCPUShares() cpuShares {
	s := cpuShares{at: time.Now(), ticks: map[int]procTicks{}}
	below, _ := descendants()
	for _, pid := range append(below, os.Getpid()) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close < open {
			continue
		}
		// After the name: state (field 3), ..., utime 14, stime 15, cutime 16, cstime 17.
		f := strings.Fields(string(b[close+1:]))
		if len(f) < 15 {
			continue
		}
		var sum int64
		for _, v := range f[11:15] {
			n, _ := strconv.ParseInt(v, 10, 64)
			sum += n
		}
		s.ticks[pid] = procTicks{name: string(b[open+1 : close]), ticks: sum}
	}
	return s
}

// since says how much of one core each kind of process used between from and s, most first:
// a process that started in between counts whole, one that ended counts in its parent's
// children's time once its parent waited for it.
func (s cpuShares) since(from cpuShares) string {
	wall := s.at.Sub(from.at).Seconds()
	if wall <= 0 {
		return "no time passed"
	}
	byName := map[string]int64{}
	for pid, p := range s.ticks {
		used := p.ticks
		if before, ok := from.ticks[pid]; ok && before.name == p.name {
			used -= before.ticks // the same process: what it used since; a reused PID counts whole
		}
		byName[p.name] += used
	}
	names := make([]string, 0, len(byName))
	var total int64
	for n, v := range byName {
		names = append(names, n)
		total += v
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(byName[b], byName[a]), strings.Compare(a, b)) })
	parts := []string{fmt.Sprintf("%.2f cores in all over %.0f s", float64(total)/clockTicks/wall, wall)}
	for _, n := range names {
		if share := float64(byName[n]) / clockTicks / wall; share >= 0.005 {
			parts = append(parts, fmt.Sprintf("%s %.2f", n, share))
		}
	}
	return strings.Join(parts, ", ")
}

// cpuRecorder reads every process's CPU every interval until stopped, so that a measurement
// can say afterwards what else ran during each of its windows.
type cpuRecorder struct {
	mu      sync.Mutex
	samples []cpuShares
	stop    chan struct{}
	done    chan struct{}
}

func recordCPU(every time.Duration) *cpuRecorder {
	r := &cpuRecorder{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			s := readCPUShares()
			r.mu.Lock()
			r.samples = append(r.samples, s)
			r.mu.Unlock()
			select {
			case <-r.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return r
}

func (r *cpuRecorder) Stop() {
	close(r.stop)
	<-r.done
}

// during says what each kind of process used between the first sample at or after from and
// the last at or before to.
func (r *cpuRecorder) during(from, to time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	first, last := -1, -1
	for i, s := range r.samples {
		if first < 0 && !s.at.Before(from) {
			first = i
		}
		if !s.at.After(to) {
			last = i
		}
	}
	if first < 0 || last <= first {
		return "not sampled"
	}
	return r.samples[last].since(r.samples[first])
}
