package nodeproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Throttling is what the CFS bandwidth control of the cgroup that sets a node process's
// smallest CPU quota counted (cpu.stat under cgroup v1 and v2): scheduler periods in which
// the group ran, and those in which it used its quota up and was held until the next.
type Throttling struct {
	Periods, Throttled int64
}

// Throttling reads the counters of the cgroup that limits the process's CPU; false when no
// cgroup on its path sets a quota or the counters cannot be read.
func (p *Process) Throttling() (Throttling, bool) {
	groups, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(p.PID), "cgroup"))
	if err != nil {
		return Throttling{}, false
	}
	_, where := quotaGroup(string(groups))
	if where == "" {
		return Throttling{}, false
	}
	stat, err := os.ReadFile(filepath.Join(where, "cpu.stat"))
	if err != nil {
		return Throttling{}, false
	}
	var t Throttling
	var ok bool
	t.Periods, t.Throttled, ok = ParseCPUStat(string(stat))
	return t, ok
}

// ParseCPUStat reads nr_periods and nr_throttled from a cgroup's cpu.stat (v1 and v2 name
// them alike); ok when both were there.
func ParseCPUStat(s string) (periods, throttled int64, ok bool) {
	var havePeriods, haveThrottled bool
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "nr_periods":
			periods, havePeriods = v, true
		case "nr_throttled":
			throttled, haveThrottled = v, true
		}
	}
	return periods, throttled, havePeriods && haveThrottled
}

// ThrottledPercent is the share of the periods between two readings in which the group was
// throttled; false when no period passed.
func ThrottledPercent(from, to Throttling) (int64, bool) {
	periods := to.Periods - from.Periods
	if periods <= 0 {
		return 0, false
	}
	return max(to.Throttled-from.Throttled, 0) * 100 / periods, true
}
