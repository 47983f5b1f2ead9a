package writer_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/testutil/cpuquota"
	"github.com/cassbench/cassbench/internal/writer"
)

// quotaCgroupEnv names, in the environment of the writer process that
// TestVerdictWritersWhenThrottledByAQuota starts, the directory of the cgroup files played for it.
const quotaCgroupEnv = "CASSBENCH_TEST_QUOTA_CGROUP"

// A writer held to a CPU quota of 100m (10 ms of every 100 ms) against nodes with headroom
// gets the Writers verdict, naming its throttling (the verdict's fourth scenario). The writer
// is a process of its own, this test binary run again, and
// internal/testutil/cpuquota throttles it for real as the kernel's CFS bandwidth control
// would a container: it is stopped whenever it has used its quota of a period, until the
// period ends. This machine's cgroups are shared and not the tests' to write, so what the
// kernel shows a container of its cgroup, cpu.max and cpu.stat, cpuquota writes into a
// directory that the writer reads in place of /sys/fs/cgroup. Only those two files are
// played; the CPU the writer reports (its own getrusage), its stalls and its scheduling
// delays are real.
//
// The writer runs against a private node (127.0.0.51), and runs alone (make test-timing):
// against the shared nodes, other tests' load queued 132 requests on them (a cluster-side
// sign, and an Unclear verdict). It keeps 4 requests in flight, fewer than the 8 waiting
// tasks that count as queueing: 8 were all found waiting at once, as a writer let go after a
// stop sends what it held. At 200m, 8 requests in flight did not keep the writer busy (150m,
// throttled in 46% of periods); 4 want several times 100m.
func TestVerdictWritersWhenThrottledByAQuota(t *testing.T) {
	if dir := os.Getenv(quotaCgroupEnv); dir != "" {
		runThrottledWriter(t, dir)
		return
	}
	cassandra.Alone(t)
	dir := t.TempDir()
	// A stopped process cannot time out by itself: the writer is killed if it hangs, and if
	// this test binary dies (Pdeathsig), so that no writer is left stopped.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestVerdictWritersWhenThrottledByAQuota$", "-test.v", "-test.count=1")
	child.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	child.Env = append(os.Environ(), quotaCgroupEnv+"="+dir)
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	l, err := cpuquota.Start(child.Process.Pid, 10*time.Millisecond, 100*time.Millisecond, dir)
	if err != nil {
		_ = child.Process.Kill()
		_ = child.Wait()
		t.Fatal(err)
	}
	err = child.Wait()
	st := l.Stop()
	t.Logf("the writer process, held to 100m: %+v", st)
	if err != nil {
		t.Fatalf("the writer process: %v\n%s", err, out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	sum, err := summary.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r := results.Merge([]*summary.Summary{sum})
	if r == nil || r.Bottleneck == nil || sum.CPU == nil {
		t.Fatalf("no verdict or writer CPU: %+v", r)
	}
	evidence := strings.Join(r.Bottleneck.Evidence, "; ")
	t.Logf("%d ops/s; writer CPU %+v; verdict %s: %s", r.OpsPerSecond, *sum.CPU, r.Bottleneck.Verdict, evidence)
	if sum.CPU.LimitMillicores != 100 || sum.CPU.UsedMillicores > 130 {
		t.Errorf("the writer read a %dm limit and used %dm; want its 100m quota, and no more than 30%% above it", sum.CPU.LimitMillicores, sum.CPU.UsedMillicores)
	}
	if r.Bottleneck.Verdict != cbv1.BottleneckWriters {
		t.Errorf("verdict %s, want Writers", r.Bottleneck.Verdict)
	}
	// The throttling is the sign that names the quota. Whether the writer also used 90% of
	// its limit depends on how much of each period it spent waiting for the node: 81m to
	// 100m of its 100m were measured, throttled in 90% to 96% of periods.
	if want := "was CPU-throttled in"; !strings.Contains(evidence, want) {
		t.Errorf("the evidence lacks %q: %s", want, evidence)
	}
}

// runThrottledWriter is the writer process: one closed-loop writer that reads its cgroup in
// dir, and leaves its summary there.
func runThrottledWriter(t *testing.T, dir string) {
	defer writer.SetCgroupDir(dir)()
	c := cassandra.Private(t, 50, cassandra.Options{Nodes: 1})
	// The quota, not a machine shared with builds, is to hold the writer back, and the node
	// is to have headroom: both get their CPU first (at default priority, with a load of 15
	// on two cores, the node answered in 8 ms at 35% of its cores and the writer used 76m).
	p, ok := nodeproc.FindProcess(c.Hosts[0], c.Port)
	if !ok {
		t.Fatalf("no process listens on %s:%d", c.Hosts[0], c.Port)
	}
	prioritize(t, p.PID)
	prioritize(t, os.Getpid())
	s := spec("it_verdict_quota", func(b *builders.BenchmarkRunBuilder) {
		b.Concurrency(4).Warmup(10 * time.Second).Duration(6 * time.Second)
	})
	setUp(t, c, s)
	sums := mustRun(t, c, s)
	b, err := sums[0].Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
