package local

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// What holdNodes reads: a CPU list for the environment's Cassandra nodes (say "1"), and
// optionally the cores' worth of CPU they may use there (say "0.5").
const (
	nodeCoresEnv = "CASSBENCH_NODE_CORES"
	nodeCPUEnv   = "CASSBENCH_NODE_CPU"
)

// cfsPeriodMicros is the CFS period of the nodes' quota: short, because a node out of quota
// stops for the rest of the period. At 10 ms, stalls of up to 5 ms now and then set the p99 of
// a window near the knee, and a rate met one run and missed the next by ten times; at 2 ms the
// knee fell between the same two rates in four runs of four (docs/capacity.md, "The band is
// the quota's"; hack/capacity-vs-sweep.sh uses the same).
const cfsPeriodMicros = 2000

// minQuotaMicros is the smallest CFS quota the kernel takes.
const minQuotaMicros = 1000

// cfsQuota is the period and quota that hold a group to cores of CPU: cfsPeriodMicros, or
// longer when the quota would be under the kernel's least.
func cfsQuota(cores float64) (period, quota int) {
	period = cfsPeriodMicros
	if cores*float64(period) < minQuotaMicros {
		period = int(math.Ceil(minQuotaMicros / cores))
	}
	return period, int(cores * float64(period))
}

// holdNodes does for a measurement in this environment what hack/capacity-vs-sweep.sh's
// NODE_CORES and NODE_CPU do locally, when CASSBENCH_NODE_CORES asks for it: every thread of
// the environment's Cassandra nodes goes onto those CPUs, and every other process of the
// environment (this test, so also the writer pods it starts later, the control plane, the
// manager and the operator) onto the others; with CASSBENCH_NODE_CPU the nodes also go into
// a cpu cgroup (v1) of their own, weighted above every other process and held to that many
// cores. The capacity of a node is then that of its share of a core, which the writers' CPU
// and the control plane's no longer take from step to step. Every affinity and the cgroup are
// put back when the test ends, and the test fails if one is not. Without the variable it does
// nothing.
func holdNodes(t *testing.T) {
	t.Helper()
	cores := os.Getenv(nodeCoresEnv)
	if cores == "" {
		return
	}
	nodeSet, err := cpuList(cores)
	if err != nil {
		t.Fatalf("%s: %v", nodeCoresEnv, err)
	}
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	client := all
	for c := range 1024 {
		if nodeSet.IsSet(c) {
			client.Clear(c)
		}
	}
	if client.Count() == 0 {
		t.Fatalf("%s=%s leaves no CPU for anything else", nodeCoresEnv, cores)
	}
	nodes, others := environmentProcesses(t)
	if len(nodes) == 0 {
		t.Fatal("no Cassandra node among this environment's processes")
	}
	was := map[int]unix.CPUSet{}
	t.Cleanup(func() {
		for tid, set := range was {
			if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) { // ESRCH: the thread ended
				t.Errorf("putting back the CPUs of thread %d: %v", tid, err)
			}
		}
		t.Logf("%s: the CPUs of %d threads put back", nodeCoresEnv, len(was))
	})
	setAll := func(pid int, set unix.CPUSet) {
		for _, tid := range threads(pid) {
			var old unix.CPUSet
			if unix.SchedGetaffinity(tid, &old) != nil {
				continue // gone
			}
			if _, ok := was[tid]; !ok {
				was[tid] = old
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
				t.Fatalf("setting the CPUs of thread %d of %d: %v", tid, pid, err)
			}
		}
	}
	for _, pid := range others {
		setAll(pid, client)
	}
	for _, pid := range nodes {
		setAll(pid, nodeSet)
	}
	t.Logf("%s=%s: the nodes %v on CPUs %s, %d other processes of the environment on the rest", nodeCoresEnv, cores, nodes, cores, len(others))
	if cpu := os.Getenv(nodeCPUEnv); cpu != "" {
		quotaNodes(t, nodes, cpu)
	}
}

// quotaNodes puts nodes into a cpu cgroup of their own, weighted 262144 (cpu.shares' most,
// against 1024 for an ordinary process) and held to cores of CPU in short periods, and takes
// them back out when the test ends.
func quotaNodes(t *testing.T, nodes []int, cores string) {
	t.Helper()
	c, err := strconv.ParseFloat(cores, 64)
	if err != nil || c <= 0 {
		t.Fatalf("%s=%q: want a number of cores above 0, such as 0.5", nodeCPUEnv, cores)
	}
	root := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		t.Fatalf("%s: cgroup v2 is not handled here; use a cgroup v1 host or leave it unset", nodeCPUEnv)
	}
	dir := filepath.Join(root, fmt.Sprintf("cassbench-test-nodes-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("%s needs root and %s writable: %v", nodeCPUEnv, root, err)
	}
	home := map[int]string{}
	t.Cleanup(func() {
		for pid, h := range home {
			if err := os.WriteFile(filepath.Join(root, h, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil && !errors.Is(err, unix.ESRCH) { // ESRCH: the node ended
				t.Errorf("putting node %d back into %s: %v", pid, h, err)
			}
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
			return
		}
		t.Logf("%s: %s removed, the nodes back where they were", nodeCPUEnv, dir)
	})
	period, quota := cfsQuota(c)
	// In this order: a new group has no quota, and the period must be set before a quota
	// that only fits it.
	for _, f := range []struct {
		file string
		v    int
	}{{"cpu.shares", 262144}, {"cpu.cfs_period_us", period}, {"cpu.cfs_quota_us", quota}} {
		if err := os.WriteFile(filepath.Join(dir, f.file), []byte(strconv.Itoa(f.v)), 0); err != nil {
			t.Fatalf("%s: writing %d to %s: %v", nodeCPUEnv, f.v, f.file, err)
		}
	}
	for _, pid := range nodes {
		h, err := cpuCgroup(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			t.Fatalf("moving node %d into %s: %v", pid, dir, err)
		}
		home[pid] = h
	}
	t.Logf("%s=%s: the nodes %v held to %d us of CPU every %d us", nodeCPUEnv, cores, nodes, quota, period)
}

// environmentProcesses is every process below this one: the Cassandra nodes apart.
func environmentProcesses(t *testing.T) (nodes, others []int) {
	t.Helper()
	below, err := descendants()
	if err != nil {
		t.Fatal(err)
	}
	others = append(others, os.Getpid())
	for _, pid := range below {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if bytes.Contains(cmdline, []byte("CassandraDaemon")) {
			nodes = append(nodes, pid)
		} else {
			others = append(others, pid)
		}
	}
	return nodes, others
}

// descendants is every process below this one.
func descendants() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, then the parent.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	self := os.Getpid()
	var out []int
	for pid := range parent {
		if pid != self && descends(pid, self, parent) {
			out = append(out, pid)
		}
	}
	return out, nil
}

func descends(pid, from int, parent map[int]int) bool {
	for seen := 0; pid > 1 && seen < 64; seen++ {
		pid = parent[pid]
		if pid == from {
			return true
		}
	}
	return false
}

func threads(pid int) []int {
	entries, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	var tids []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}

// cpuList reads a CPU list such as "1" or "0,2-3".
func cpuList(s string) (unix.CPUSet, error) {
	var set unix.CPUSet
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= 1024 {
			return set, fmt.Errorf("%q is not a CPU list such as 1 or 0,2-3", s)
		}
		for c := a; c <= b; c++ {
			set.Set(c)
		}
	}
	return set, nil
}

// cpuCgroup is pid's cgroup (v1) of the cpu controller, below /sys/fs/cgroup/cpu.
func cpuCgroup(pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && strings.Contains(","+f[1]+",", ",cpu,") {
			return f[2], nil
		}
	}
	return "", fmt.Errorf("process %d has no cpu cgroup (v1)", pid)
}
