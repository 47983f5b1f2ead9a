package nodeproc

import (
	"bufio"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/testutil/tier"
)

// churn is a Java program that collects in bursts: it allocates 256 MiB (young
// collections), asks for a full collection every other burst, then rests 4 s, in which the
// counters hold still. It prints "ready" after its first burst.
const churn = `public class Churn {
  public static void main(String[] a) throws Exception {
    Object[] keep = new Object[256];
    for (int burst = 0; ; burst++) {
      for (int i = 0; i < 65536; i++) keep[i % keep.length] = new byte[4096];
      if (burst % 2 == 1) System.gc();
      if (burst == 0) { System.out.println("ready"); System.out.flush(); }
      Thread.sleep(4000);
    }
  }
}
`

// startJVM runs churn with the JVM's default flags and returns its process.
func startJVM(t *testing.T, flags ...string) *Process {
	t.Helper()
	tier.Require(t, tier.Cassandra) // the tier that has Java
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatal("java is needed (the local Cassandra nodes need it too)")
	}
	src := filepath.Join(t.TempDir(), "Churn.java")
	if err := os.WriteFile(src, []byte(churn), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", append(append([]string{"-Xmx64m"}, flags...), src)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("the JVM said %q, %v", line, err)
	}
	args := append([]string{"java", "-Xmx64m"}, flags...)
	return &Process{PID: cmd.Process.Pid, args: append(args, src)}
}

// jstatGC runs jstat -gcutil once: the collections (YGC+FGC+CGC) and GCT in milliseconds.
func jstatGC(t *testing.T, pid int) (count, millis int64) {
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
	col := map[string]string{}
	for i, h := range head {
		if i < len(vals) {
			col[h] = vals[i]
		}
	}
	for _, h := range []string{"YGC", "FGC", "CGC"} {
		if n, err := strconv.ParseInt(col[h], 10, 64); err == nil {
			count += n
		}
	}
	gct, err := strconv.ParseFloat(col["GCT"], 64)
	if err != nil {
		t.Fatalf("jstat's GCT %q: %v", col["GCT"], err)
	}
	return count, int64(gct*1000 + 0.5)
}

// The collections read from the JVM's hsperfdata file are what jstat -gcutil, the JDK's own
// reader of that file, prints: the same count, and the same total to jstat's millisecond.
// A reading between two jstat runs that agree is compared; the JVM collects meanwhile, so
// a pair that disagrees is taken again.
func TestGCCountersAgreeWithJstat(t *testing.T) {
	p := startJVM(t)
	path, err := p.PerfData()
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for try := 0; try < 30 && compared < 3; try++ {
		c1, ms1 := jstatGC(t, p.PID)
		gc, err := GCCounters(path)
		if err != nil {
			t.Fatal(err)
		}
		c2, ms2 := jstatGC(t, p.PID)
		if c1 != c2 || ms1 != ms2 || c1 == 0 {
			continue
		}
		compared++
		if got := int64(gc.Total/time.Microsecond+500) / 1000; gc.Count != c1 || got < ms1-1 || got > ms1+1 {
			t.Errorf("hsperfdata: %d collections, %v; jstat: %d collections, GCT %d ms", gc.Count, gc.Total, c1, ms1)
		}
		t.Logf("hsperfdata: %d collections, %v; jstat: %d, %d ms", gc.Count, gc.Total, c1, ms1)
		time.Sleep(2 * time.Second) // into the next burst
	}
	if compared == 0 {
		t.Fatal("jstat never read the same collections twice in a row")
	}
}

// A JVM that keeps no counters file says why, naming the flag.
func TestPerfDataOffSaysWhy(t *testing.T) {
	p := startJVM(t, "-XX:+PerfDisableSharedMem")
	_, err := p.PerfData()
	if err == nil || !strings.Contains(err.Error(), "-XX:+PerfDisableSharedMem") {
		t.Fatalf("PerfData() error %v; want it to name -XX:+PerfDisableSharedMem", err)
	}
}

// A damaged or foreign file is refused with a reason, never read as counters.
func TestParsePerfDataRefusesDamage(t *testing.T) {
	p := startJVM(t)
	path, err := p.PerfData()
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := parsePerfData(good); err != nil || c["sun.os.hrt.frequency"] <= 0 {
		t.Fatalf("the JVM's own file: %d counters, %v", len(c), err)
	}
	badMagic := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(badMagic, 0xdeadbeef)
	cases := map[string][]byte{
		"empty":                 nil,
		"prologue cut":          good[:20],
		"entries cut":           good[:perfPrologueSize+10],
		"another file's magic":  badMagic,
		"first entry misplaced": withUint32(good, 24, 1<<30),
	}
	for name, data := range cases {
		if c, err := parsePerfData(data); err == nil {
			t.Errorf("%s: read %d counters, want an error", name, len(c))
		}
	}
}

// withUint32 is data with the 32-bit word at off replaced, in the file's own byte order.
func withUint32(data []byte, off int, v uint32) []byte {
	out := append([]byte(nil), data...)
	if out[4] == 1 {
		binary.LittleEndian.PutUint32(out[off:], v)
	} else {
		binary.BigEndian.PutUint32(out[off:], v)
	}
	return out
}
