package writer_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
	"github.com/cassbench/cassbench/internal/testutil/plainnode"
	"github.com/cassbench/cassbench/internal/writer"
)

// A node a user started by hand (plainnode: java over the cassandra-all jars, default JVM
// flags, no gc log, an IPv6 socket) gives the same evidence as the nodes cassbench starts:
//   - its GC from the JVM's counters, which jstat -gcutil reads too: the collections in the
//     window are some of those jstat counts around the run, and include the full collection
//     jcmd asks for inside the window;
//   - its CPU from /proc, found through its dual-stack socket: over the window, no more than
//     the test reads from /proc/PID/stat itself around the run;
//   - one request in flight judged Writers by Little's law, the node having room;
//   - a coordinator p99 under the latency table's millisecond reads "< 1 ms", never 0;
//   - the mutations it applied over the window are the window's writes (RF 1).
//
// It starts a JVM of its own, so it runs alone (make test-timing).
func TestServerEvidenceOnAPlainJavaNode(t *testing.T) {
	node := plainnode.Start(t, 30)
	c := &cassandra.Cluster{Hosts: []string{node.Host}, Port: node.Port}
	s := spec("it_plain", func(b *builders.BenchmarkRunBuilder) {
		b.Warmup(5 * time.Second).Duration(15 * time.Second).Concurrency(1).ReplicationFactor(1)
	})
	setUp(t, c, s)

	// A first run with a full collection asked for in its window: a full collection of the
	// default heap on a loaded machine pauses long enough to weigh in the verdict, so the
	// verdict is the second run's.
	gcBefore, msBefore := jstatGC(t, node.PID)
	collect := &collectInWindow{t: t, pid: node.PID}
	withGC := results.Merge(mustRun(t, c, s, func(cfg *writer.Config) { cfg.Progress = collect }))
	gcAfter, msAfter := jstatGC(t, node.PID)
	collect.wait()
	if withGC == nil || withGC.Server == nil || len(withGC.Server.Nodes) != 1 {
		t.Fatalf("no server figures: %+v", withGC)
	}
	t.Logf("jstat around the run: %d collections, %d ms; in the window: %+v", gcAfter-gcBefore, msAfter-msBefore, withGC.Server.Nodes[0].GC)
	switch g := withGC.Server.Nodes[0].GC; {
	case g == nil:
		t.Errorf("no GC figure; not available: %q", withGC.Server.Nodes[0].NotAvailable)
	case g.Source != cbv1.GCSourceHSPerfData:
		t.Errorf("GC source %q, want %q", g.Source, cbv1.GCSourceHSPerfData)
	case g.Pauses < 1 || g.Pauses > int64(gcAfter-gcBefore) || g.TotalMillis > int64(msAfter-msBefore)+1:
		t.Errorf("GC in the window: %d collections, %d ms; jstat around it: %d, %d ms", g.Pauses, g.TotalMillis, gcAfter-gcBefore, msAfter-msBefore)
	}

	cpuBefore := procCPU(t, node.PID)
	r := results.Merge(mustRun(t, c, s))
	cpuAfter := procCPU(t, node.PID)
	if r == nil || r.Server == nil || len(r.Server.Nodes) != 1 || r.Bottleneck == nil {
		t.Fatalf("no server figures or verdict: %+v", r)
	}
	n := r.Server.Nodes[0]
	var text bytes.Buffer
	if err := report.Server(&text, r); err != nil {
		t.Fatal(err)
	}
	t.Logf("/proc around the run: %v of CPU\n%s", cpuAfter-cpuBefore, text.String())

	// The CPU the node used in the window (its rate over at least the window), against what
	// /proc says it used around the run, give or take a clock tick at each end.
	used := time.Duration(n.CPUMillicores*r.WindowMillis) * time.Microsecond
	if n.CPUMillicores <= 0 || n.CPUCores <= 0 || used > cpuAfter-cpuBefore+20*time.Millisecond {
		t.Errorf("node CPU %dm of %d cores over the %d ms window (%v); /proc around the run: %v; not available: %q",
			n.CPUMillicores, n.CPUCores, r.WindowMillis, used, cpuAfter-cpuBefore, n.NotAvailable)
	}
	if r.Bottleneck.Verdict != cbv1.BottleneckWriters {
		t.Errorf("verdict %s, want Writers: %q", r.Bottleneck.Verdict, r.Bottleneck.Evidence)
	}
	if n.CoordinatorLatencyResolutionMicros != 1000 {
		t.Errorf("coordinator latency resolution %d µs, want 1000 on Cassandra 5.0", n.CoordinatorLatencyResolutionMicros)
	}
	if n.CoordinatorWriteP99Micros < n.CoordinatorLatencyResolutionMicros && !strings.Contains(text.String(), "< 1 ms") {
		t.Errorf("a coordinator p99 of %d µs at %d µs resolution does not read '< 1 ms'", n.CoordinatorWriteP99Micros, n.CoordinatorLatencyResolutionMicros)
	}
	// Read for the window's start once the warm-up drained, the node counts the window's
	// writes and no others.
	if r.Writes != nil && r.Writes.Failed == 0 && n.Mutations != r.Writes.Operations {
		t.Errorf("the node applied %d mutations over the window for %d writes at RF 1", n.Mutations, r.Writes.Operations)
	}
}

// collectInWindow is a writer's progress output that asks the node's JVM for a full
// collection (jcmd GC.run) once the writer reports measuring, so the window holds one.
type collectInWindow struct {
	t    *testing.T
	pid  int
	once sync.Once
	wg   sync.WaitGroup
}

func (c *collectInWindow) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("measuring")) {
		c.once.Do(func() {
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				if out, err := exec.Command("jcmd", strconv.Itoa(c.pid), "GC.run").CombinedOutput(); err != nil {
					c.t.Errorf("jcmd GC.run: %v: %s", err, out)
				}
			}()
		})
	}
	return len(p), nil
}

func (c *collectInWindow) wait() { c.wg.Wait() }

// jstatGC runs jstat -gcutil: the collections (YGC+FGC+CGC) and GCT in milliseconds.
func jstatGC(t *testing.T, pid int) (count, millis int) {
	t.Helper()
	out, err := exec.Command("jstat", "-gcutil", strconv.Itoa(pid)).Output()
	if err != nil {
		t.Fatalf("jstat -gcutil %d: %v", pid, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("jstat printed %q", out)
	}
	head, vals := strings.Fields(lines[0]), strings.Fields(lines[1])
	for i, h := range head {
		switch {
		case i >= len(vals):
		case h == "YGC" || h == "FGC" || h == "CGC":
			if v, err := strconv.Atoi(vals[i]); err == nil {
				count += v
			}
		case h == "GCT":
			gct, err := strconv.ParseFloat(vals[i], 64)
			if err != nil {
				t.Fatalf("jstat's GCT %q: %v", vals[i], err)
			}
			millis = int(gct*1000 + 0.5)
		}
	}
	return count, millis
}

// procCPU reads a process's user and system time from /proc/PID/stat, apart from the
// product's reader.
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name, which ends with the last ')': state is the first, utime
	// the 12th and stime the 13th (proc(5) numbers them 14 and 15 of the whole line).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
