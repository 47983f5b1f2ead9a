package writer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// Many writers against a node held to one core saturate it: the Cluster verdict, naming the
// node's CPU as read from its process against the one core its affinity allows (the verdict's
// third scenario). Six writers keep one request each in flight, fewer than the node's stage
// threads, so its queues stay short and its CPU is the only evidence: without the node-CPU
// rule the verdict is Unclear (measured: "node 127.0.0.41 used 99% of the CPU it could use:
// more requests in flight may or may not raise throughput").
//
// The node is a private one (127.0.0.41), so that the shared nodes and the other tests are
// left alone, pinned to one core with sched_setaffinity as taskset -a pins a process, and
// given that core first (dedicate) as a node with its own core has it: on a machine shared
// with builds, a node pinned at default priority got 89% of its core while other processes
// took the rest. It runs alone (make test-timing). The writers run unpinned, and the
// scheduler keeps them on the other core, as a writer pod on its own machine. The warm-up
// lets the fresh node's JIT compile its hot paths, which at first stalled it for seconds.
func TestVerdictClusterWhenANodeSaturatesItsCPU(t *testing.T) {
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	if mine.Count() < 2 {
		t.Skipf("needs two cores, one for the node and one for the writers; this process may use %d", mine.Count())
	}
	c := cassandra.Private(t, 40, cassandra.Options{Nodes: 1})
	p, ok := nodeproc.FindProcess(c.Hosts[0], c.Port)
	if !ok {
		t.Fatalf("no process listens on %s:%d", c.Hosts[0], c.Port)
	}
	dedicate(t, p.PID, firstCPU(mine))
	if a := p.Allowance(); a.Cores != 1 {
		t.Fatalf("the pinned node's affinity allows %d cores, want 1", a.Cores)
	}
	s := spec("it_verdict_node_cpu", func(b *builders.BenchmarkRunBuilder) {
		b.Writers(6).Concurrency(1).Warmup(10 * time.Second).Duration(8 * time.Second)
	})
	setUp(t, c, s)
	// The node takes one core, so the writers have one: as many threads as that, or two
	// would share it by time slices. They get that core first, as the node gets its own: on
	// a machine shared with builds their goroutines otherwise waited 7 ms for a thread (p99),
	// a writer-side sign; they use about a quarter of it (270m measured).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	prioritize(t, os.Getpid())
	sums, errs := runWriters(context.Background(), t, c, s)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	r := results.Merge(sums)
	if r == nil || r.Bottleneck == nil || r.Server == nil {
		t.Fatalf("no verdict or server figures: %+v", r)
	}
	evidence := strings.Join(r.Bottleneck.Evidence, "; ")
	t.Logf("%d ops/s; verdict %s: %s", r.OpsPerSecond, r.Bottleneck.Verdict, evidence)
	for _, n := range r.Server.Nodes {
		t.Logf("node %s: CPU %dm of %d cores (limit %dm)", n.Node, n.CPUMillicores, n.CPUCores, n.CPULimitMillicores)
	}
	for _, sum := range sums {
		t.Logf("writer %d CPU %+v", sum.Index, *sum.CPU)
	}
	if r.Bottleneck.Verdict != cbv1.BottleneckCluster {
		t.Errorf("verdict %s, want Cluster", r.Bottleneck.Verdict)
	}
	if want := "node " + c.Hosts[0] + "'s CPU was saturated"; !strings.Contains(evidence, want) ||
		!strings.Contains(evidence, "of the 1.0 cores it could use") {
		t.Errorf("the evidence does not name node %s's saturated core: %s", c.Hosts[0], evidence)
	}
}

// firstCPU is the lowest CPU of set.
func firstCPU(set unix.CPUSet) int {
	for cpu := 0; ; cpu++ {
		if set.IsSet(cpu) {
			return cpu
		}
	}
}

// dedicate pins every thread of process pid to one CPU, as taskset -a does, and gives it
// the highest priority (see prioritize). Threads the process starts later inherit both.
func dedicate(t *testing.T, pid, cpu int) {
	t.Helper()
	var set unix.CPUSet
	set.Set(cpu)
	err := eachThread(pid, func(tid int) error { return unix.SchedSetaffinity(tid, &set) })
	if err != nil {
		t.Fatalf("pinning process %d to CPU %d: %v", pid, cpu, err)
	}
	prioritize(t, pid)
}

// prioritize gives process pid the highest priority, nice -20, for its threads and for its
// scheduling group (/proc/PID/autogroup: with autogroup on, CFS shares a core between
// sessions before threads), and puts back what it had when the test ends. Threads started
// later inherit it. It needs CAP_SYS_NICE; without it the process keeps its priority and
// the test says so.
func prioritize(t *testing.T, pid int) {
	t.Helper()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
	if err != nil {
		t.Fatalf("reading the priority of process %d: %v", pid, err)
	}
	nice := 20 - prio // the system call returns 20 - nice
	group := filepath.Join("/proc", strconv.Itoa(pid), "autogroup")
	groupNice, hasGroup := autogroupNice(group)
	setThreads := func(n int) error {
		return eachThread(pid, func(tid int) error { return unix.Setpriority(unix.PRIO_PROCESS, tid, n) })
	}
	err = setThreads(-20)
	if err == nil && hasGroup {
		err = os.WriteFile(group, []byte("-20"), 0)
	}
	if err != nil {
		t.Logf("process %d keeps its priority (%v): other processes on its core may take CPU from it", pid, err)
	}
	t.Cleanup(func() {
		_ = setThreads(nice)
		if hasGroup {
			_ = os.WriteFile(group, []byte(strconv.Itoa(groupNice)), 0)
		}
	})
}

// eachThread calls f with every thread of process pid; a thread that exited meanwhile
// (ESRCH) is skipped.
func eachThread(pid int, f func(tid int) error) error {
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return err
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if err := f(tid); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("thread %d: %w", tid, err)
		}
	}
	return nil
}

// autogroupNice reads the nice value of /proc/PID/autogroup ("/autogroup-110 nice 0"); false
// when the kernel has no autogroup.
func autogroupNice(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 3 || f[1] != "nice" {
		return 0, false
	}
	n, err := strconv.Atoi(f[2])
	return n, err == nil
}
