package writer_test

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/nodeproc"
	"github.com/cassbench/cassbench/internal/results"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/testutil/cassandra"
)

// gcLogPauses is the test's own reading of a JVM's gc log: the pauses whose line was written
// in [from, to], and their milliseconds.
func gcLogPauses(t *testing.T, path string, from, to time.Time) (n int64, millis float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		// [2026-11-24T06:29:27.249+0000][10.433s] GC(9) Pause Young (Normal) (...) 364M->34M(512M) 37.689ms
		if !strings.Contains(line, ") Pause ") || !strings.HasSuffix(line, "ms") || len(line) < 30 {
			continue
		}
		at, err := time.Parse("2006-01-02T15:04:05.000-0700", line[1:strings.IndexByte(line, ']')])
		if err != nil || at.Before(from) || at.After(to) {
			continue
		}
		ms, err := strconv.ParseFloat(strings.TrimSuffix(line[strings.LastIndexByte(line, ' ')+1:], "ms"), 64)
		if err == nil {
			n++
			millis += ms
		}
	}
	return n, millis
}

// The server's figures against independent readings of the same nodes over the run: every
// write applied on both replicas (consistency ALL, so each acknowledged write was) is one
// mutation each, with nothing lost at the window's ends; the coordinator p99, read in the
// unit of the node's version, is of the order of the client's service p99 (5.0.9's tables
// hold seconds to the millisecond: read as milliseconds, as before, it was a thousand times
// too small); and the GC pauses of each node lie between what the test reads itself in its
// gc log inside the run's window (a second in from each end, for the distance between the
// writers' reads and the window they report) and around the whole run, and there are some,
// under writes of 2-8 KB values on 512 MB heaps.
func TestServerFiguresAgreeWithTheNodes(t *testing.T) {
	c := cluster(t)
	s := spec("it_server_truth", func(b *builders.BenchmarkRunBuilder) {
		b.ReplicationFactor(2).WriteConsistency("ALL").Profile(cbv1.ProfileRevisions).
			Writers(2).Concurrency(8).Duration(8 * time.Second)
	})
	setUp(t, c, s)
	// No automatic compaction of the table: one that starts after the window's last reading
	// merges its SSTables before nodetool counts them (5 at the end, 1 a second later), so the
	// count could not be held against nodetool's. Flushes still move it.
	for i := range c.Hosts {
		if err := nodetool(i+1, "disableautocompaction", "--", "it_server_truth", "revisions"); err != nil {
			t.Fatalf("nodetool disableautocompaction on node %d: %v", i+1, err)
		}
	}
	var procs []*nodeproc.Process
	for _, h := range c.Hosts {
		p, ok := nodeproc.FindProcess(h, c.Port)
		if !ok || p.GCLog == "" {
			t.Fatalf("no process with a gc log listens on %s:%d: %+v", h, c.Port, p)
		}
		procs = append(procs, p)
	}
	// The gc log's times are the machine's, to the millisecond. While the writers run, node
	// 1's memtable of the table is flushed every second or so, so its SSTables move; and every
	// second second each node is asked for a full collection (jcmd GC.run, a stop-the-world
	// "Pause Full (Diagnostic Command)"), so that the window holds pauses however few writes
	// a loaded machine manages (a run of 3,253 writes on a just-started cluster had none).
	outerFrom := time.Now().Add(-time.Millisecond)
	stopFlushing, flushed := make(chan struct{}), make(chan []time.Time)
	go func() {
		var n []time.Time // when each of the test's flushes of node 1 ended
		defer func() { flushed <- n }()
		for {
			select {
			case <-stopFlushing:
				return
			case <-time.After(time.Second):
			}
			if nodetool(1, "flush", "--", "it_server_truth") == nil {
				n = append(n, time.Now())
			}
		}
	}()
	// The collections are asked for on a clock of their own: behind flushes that take
	// seconds each on a loaded machine, every third one came too late for an 8 s window.
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stopFlushing:
				return
			case <-time.After(2 * time.Second):
			}
			for _, p := range procs {
				if out, err := exec.Command("jcmd", strconv.Itoa(p.PID), "GC.run").CombinedOutput(); err != nil {
					t.Logf("jcmd %d GC.run: %v: %s", p.PID, err, out)
				}
			}
		}
	}()
	sums := mustRun(t, c, s)
	close(stopFlushing)
	flushedAt := <-flushed
	<-gcDone
	outerTo := time.Now().Add(time.Millisecond)
	r := results.Merge(sums)
	if r == nil || r.Server == nil || r.Writes == nil {
		t.Fatalf("no results or server figures: %+v", r)
	}
	t.Logf("writes %d (failed %d), service p99 %d µs; server total %+v", r.Writes.Operations, r.Writes.Failed, r.Writes.Service.P99, r.Server.Total)

	if want := 2 * r.Writes.Operations; r.Writes.Failed == 0 && r.Server.Total.Mutations != want {
		t.Errorf("the nodes applied %d mutations to the table in the window; %d writes at RF 2 make %d",
			r.Server.Total.Mutations, r.Writes.Operations, want)
	}

	client := r.Writes.Service.P99
	for _, n := range r.Server.Nodes {
		coord, res := n.CoordinatorWriteP99Micros, n.CoordinatorLatencyResolutionMicros
		t.Logf("node %s: coordinator write p99 %d µs (resolution %d µs), CPU %dm of %d cores, GC %+v", n.Node, coord, res, n.CPUMillicores, n.CPUCores, n.GC)
		if res != 1000 {
			t.Errorf("node %s: resolution %d µs; 5.0's tables hold seconds to three decimals, 1000 µs", n.Node, res)
		}
		// The coordinator's time is the client's less the network and the driver, and both
		// are p99s of a few milliseconds here; a loaded machine moves either by a quarter.
		if lo, hi := client/4-res, 2*client+res; coord < lo || coord > hi {
			t.Errorf("node %s: coordinator write p99 %d µs, want within [%d, %d] of the client's service p99 %d µs", n.Node, coord, lo, hi, client)
		}
		if n.CPUCores == 0 {
			t.Errorf("node %s: CPU not read from its process", n.Node)
		}
	}

	// Flushes the test made after the window's last reading add SSTables nodetool counts.
	// Those that ended before the window's first reading (writers held at a start barrier on
	// a loaded machine: CI saw two, with nothing to flush yet) cannot move the window's count.
	late, inside := 0, 0
	for _, at := range flushedAt {
		switch {
		case at.After(r.WindowEnd.Time):
			late++
		case at.After(r.WindowStart.Time):
			inside++
		}
	}
	checkSSTables(t, c, r.Server, inside, late)

	var pauses int64
	innerFrom, innerTo := r.WindowStart.Add(time.Second), r.WindowEnd.Add(-time.Second)
	for i, p := range procs {
		n := nodeNamed(r.Server, c.Hosts[i])
		if n == nil || n.GC == nil || n.GC.Source != cbv1.GCSourceGCLog {
			t.Errorf("node %s: no GC figures from its gc log: %+v", c.Hosts[i], n)
			continue
		}
		lo, loMillis := gcLogPauses(t, p.GCLog, innerFrom, innerTo)
		hi, hiMillis := gcLogPauses(t, p.GCLog, outerFrom, outerTo)
		t.Logf("node %s: %d pauses, %d ms in the window; the log has %d (%.1f ms) inside it and %d (%.1f ms) around the run",
			n.Node, n.GC.Pauses, n.GC.TotalMillis, lo, loMillis, hi, hiMillis)
		// Each pause's milliseconds are rounded once in the figure's total.
		if n.GC.Pauses < lo || n.GC.Pauses > hi ||
			float64(n.GC.TotalMillis) < loMillis-1 || float64(n.GC.TotalMillis) > hiMillis+1 {
			t.Errorf("node %s: %d pauses of %d ms, want between %d (%.1f ms) and %d (%.1f ms)", n.Node, n.GC.Pauses, n.GC.TotalMillis, lo, loMillis, hi, hiMillis)
		}
		pauses += n.GC.Pauses
	}
	if pauses == 0 {
		t.Error("no GC pause in 8 s of writing 2-8 KB rows to 512 MB heaps")
	}
}

// nodetool runs nodetool against node i (1-based) of the local cluster.
func nodetool(i int, args ...string) error {
	return exec.Command("../../hack/cassandra.sh", append([]string{"nodetool", "--node", strconv.Itoa(i)}, args...)...).Run()
}

// checkSSTables holds each node's SSTable count at the window's end against nodetool
// tablestats of the benchmark table (the keyspace also holds the writers' barrier table,
// which tablestats of the keyspace can list first) read right after (a compaction running at the end may have merged some since,
// so nodetool's count may be lower by what compaction merged, never higher), and asks node 1, whose
// memtable the test flushed while the writers ran, for more SSTables at some sample than at
// the start. The local nodes' CPU allowance is their affinity: the machine's cores here.
// flushes are the test's flushes of node 1 that ended inside the window, lateFlushes those
// after it.
func checkSSTables(t *testing.T, c *cassandra.Cluster, srv *cbv1.ServerResults, flushes, lateFlushes int) {
	t.Helper()
	count := regexp.MustCompile(`SSTable count: (\d+)`)
	for i, h := range c.Hosts {
		n := nodeNamed(srv, h)
		if n == nil || n.SSTables == nil || n.SSTables.Source != "disk" {
			t.Errorf("node %s: no SSTable count from its table directory: %+v", h, n)
			continue
		}
		out, err := exec.Command("../../hack/cassandra.sh", "nodetool", "--node", strconv.Itoa(i+1), "tablestats", "--", "it_server_truth.revisions").CombinedOutput()
		if err != nil {
			t.Fatalf("nodetool tablestats on node %d: %v: %s", i+1, err, out)
		}
		m := count.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("node %d: no SSTable count in nodetool tablestats:\n%s", i+1, out)
		}
		want, _ := strconv.ParseInt(m[1], 10, 64)
		ss := n.SSTables
		t.Logf("node %s: SSTables %d→%d (peak %d), tablestats %d after; compactions %d, flushes %d; CPU %dm of %dm (%d cores)",
			h, ss.Before, ss.After, ss.Peak, want, n.Compactions, n.Flushes, n.CPUMillicores, n.CPULimitMillicores, n.CPUCores)
		late := int64(0)
		if i == 0 {
			late = int64(lateFlushes) // the test flushes node 1 until the run returns
		}
		if ss.After+late < want || ss.After > want+n.CompactionBacklogAfter+n.Compactions {
			t.Errorf("node %s: %d SSTables at the end, nodetool tablestats says %d (compactions at the end %d, the test's flushes after the window %d)", h, ss.After, want, n.CompactionBacklogAfter, late)
		}
		if n.CPULimitMillicores != int64(runtime.NumCPU())*1000 {
			t.Errorf("node %s: could use %dm of CPU; its affinity allows the machine's %d cores", h, n.CPULimitMillicores, runtime.NumCPU())
		}
	}
	if n := nodeNamed(srv, c.Hosts[0]); n != nil && n.SSTables != nil && flushes > 1 && n.SSTables.Peak <= n.SSTables.Before {
		t.Errorf("node %s: flushed %d times inside the window, yet its SSTables never rose above %d", c.Hosts[0], flushes, n.SSTables.Before)
	}
}

func nodeNamed(s *cbv1.ServerResults, node string) *cbv1.NodeServerResults {
	for i := range s.Nodes {
		if s.Nodes[i].Node == node {
			return &s.Nodes[i]
		}
	}
	return nil
}
