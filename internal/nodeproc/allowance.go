package nodeproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupRoot is where the cgroup file systems are mounted; tests point it elsewhere.
var cgroupRoot = "/sys/fs/cgroup"

// Allowance is the CPU a node process may use: the cores its CPU affinity allows
// (/proc/PID/status Cpus_allowed_list) and, when its cgroup (or an ancestor) sets a quota, that
// quota in millicores. A node pinned to one core of an 8-core machine saturates at 1,000m,
// which the machine's core count would hide.
type Allowance struct {
	Cores int
	// QuotaMillicores is the cgroup's CPU quota, 0 when none is set.
	QuotaMillicores int64
}

// Millicores is the least of the two limits, 0 when neither is known.
func (a Allowance) Millicores() int64 {
	m := int64(a.Cores) * 1000
	if a.QuotaMillicores > 0 && (m == 0 || a.QuotaMillicores < m) {
		m = a.QuotaMillicores
	}
	return m
}

// Allowance reads the process's CPU affinity and its cgroup's quota.
func (p *Process) Allowance() Allowance {
	var a Allowance
	pid := strconv.Itoa(p.PID)
	if status, err := os.ReadFile(filepath.Join(procRoot, pid, "status")); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				a.Cores = countCPUList(strings.TrimSpace(v))
			}
		}
	}
	if groups, err := os.ReadFile(filepath.Join(procRoot, pid, "cgroup")); err == nil {
		a.QuotaMillicores = cgroupQuota(string(groups))
	}
	return a
}

// countCPUList counts the CPUs of a kernel CPU list such as "0-3,6,8-9"; 0 when unreadable.
func countCPUList(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		first, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil || last < first {
				return 0
			}
		}
		n += last - first + 1
	}
	return n
}

// cgroupQuota finds the smallest CPU quota, in millicores, on the path of a process's cgroup
// (its /proc/PID/cgroup) and every ancestor: cgroup v2's cpu.max ("max 100000" or "50000
// 100000"), else v1's cpu.cfs_quota_us over cpu.cfs_period_us. 0 when none is set or
// readable. The paths are relative to this process's cgroup namespace, which is the node's
// when both run on the same host.
func cgroupQuota(groups string) int64 {
	least, _ := quotaGroup(groups)
	return least
}

// quotaGroup is cgroupQuota with the directory of the cgroup that sets the smallest quota
// ("" when none does): the one whose cpu.stat counts the throttling.
func quotaGroup(groups string) (least int64, where string) {
	for _, line := range strings.Split(strings.TrimSpace(groups), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var dir string
		switch {
		case f[0] == "0" && f[1] == "":
			dir = cgroupRoot
		case hasController(f[1], "cpu"):
			dir = filepath.Join(cgroupRoot, f[1])
		default:
			continue
		}
		for path := filepath.Clean("/" + f[2]); ; path = filepath.Dir(path) {
			if q := quotaAt(filepath.Join(dir, path)); q > 0 && (least == 0 || q < least) {
				least, where = q, filepath.Join(dir, path)
			}
			if path == "/" {
				break
			}
		}
	}
	return least, where
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// quotaAt reads one cgroup directory's CPU quota in millicores, 0 when it sets none.
func quotaAt(dir string) int64 {
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.max")); err == nil {
		f := strings.Fields(string(b))
		if len(f) == 2 && f[0] != "max" {
			return ratioMillicores(f[0], f[1])
		}
		return 0
	}
	q, err1 := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0
	}
	return ratioMillicores(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

// ratioMillicores is quota/period in millicores; 0 for "-1" (v1's no quota) or nonsense.
func ratioMillicores(quota, period string) int64 {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return q * 1000 / p
}
