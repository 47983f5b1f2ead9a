// Package nodeproc reads a Cassandra node that runs on this machine from its process: the
// process found by the socket it listens on for CQL, its CPU time (/proc), the CPU it may
// use (affinity and cgroup quota) and its garbage collector's pauses. It is what a node on
// the writer's host offers beyond the virtual tables; on Kubernetes a writer's nodes are in
// other pods and no process is found.
package nodeproc

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a node that runs on this machine, found by the socket it listens on for CQL:
// its CPU and its garbage collector's log are read from the process itself, which is what a
// node on the same host (the local test and demo nodes) offers and the virtual tables do not.
// On Kubernetes a writer's nodes are in other pods and no Process is found.
type Process struct {
	PID int
	// GCLog is the file of the JVM's -Xlog:gc output, empty when it logs none to a file.
	GCLog string
	// args are its command line.
	args []string
}

// procRoot is where the process table is read; tests point it elsewhere.
var procRoot = "/proc"

// FindProcess finds the process listening on addr:port for CQL on this machine. A JVM
// started without -Djava.net.preferIPv4Stack=true (a plain java command; Cassandra's
// scripts set it) listens on an IPv6 socket that also takes IPv4: its address is then in
// /proc/net/tcp6, as the IPv4-mapped address or the IPv6 wildcard (the kernel's socket
// diagnostics are asked first: listenerInode).
func FindProcess(addr string, port int) (*Process, bool) {
	ip := net.ParseIP(addr)
	if ip == nil || ip.To4() == nil {
		return nil, false // the local nodes are IPv4
	}
	// The kernel answers for the real /proc only; tests that point procRoot elsewhere read
	// their tables, as does a kernel that cannot be asked.
	inode, asked := "", false
	if procRoot == "/proc" {
		var err error
		inode, err = diagnosedInode(ip, port)
		asked = err == nil
	}
	if !asked {
		inode = listeningInode(filepath.Join(procRoot, "net", "tcp"), ip.To4(), port)
		if inode == "" {
			inode = listeningInode(filepath.Join(procRoot, "net", "tcp6"), ip.To4(), port)
		}
	}
	if inode == "" {
		return nil, false
	}
	pid := socketOwner(inode)
	if pid == 0 {
		return nil, false
	}
	cmdline, _ := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	args := strings.Split(string(cmdline), "\x00")
	return &Process{PID: pid, GCLog: gcLogPath(args), args: args}, true
}

// diagnosedInode asks the kernel for the inode of the socket listening on ip:port, an IPv4
// one or an IPv6 one that takes IPv4; "" when none does. An error says the kernel could not
// be asked (no socket diagnostics), and /proc's tables are read instead.
func diagnosedInode(ip net.IP, port int) (string, error) {
	for _, family := range []int{syscall.AF_INET, syscall.AF_INET6} {
		inode, err := listenerInode(family, ip, port)
		if err != nil {
			return "", err
		}
		if inode != 0 {
			return strconv.FormatUint(uint64(inode), 10), nil
		}
	}
	return "", nil
}

// listeningInode returns the inode of the LISTEN socket on ip:port in a /proc/net/tcp or
// tcp6 table, taking a wildcard listener too.
func listeningInode(table string, ip net.IP, port int) string {
	data, err := os.ReadFile(table)
	if err != nil {
		return ""
	}
	// The tables write an address as its 32-bit words, each in host order (little-endian
	// here): tcp6 holds 127.0.0.1 as ::ffff:127.0.0.1.
	word := strings.ToUpper(hex.EncodeToString([]byte{ip[3], ip[2], ip[1], ip[0]}))
	suffix := fmt.Sprintf(":%04X", port)
	want, wildcard := word+suffix, "00000000"+suffix
	if strings.HasSuffix(table, "6") {
		want = "0000000000000000FFFF0000" + word + suffix
		wildcard = strings.Repeat("0", 32) + suffix
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
			continue
		}
		if f[1] == want || f[1] == wildcard {
			return f[9]
		}
	}
	return ""
}

// socketOwner finds the process holding socket inode among the ones this user may read.
func socketOwner(inode string) int {
	target := "socket:[" + inode + "]"
	procs, _ := os.ReadDir(procRoot)
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(procRoot, p.Name(), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(procRoot, p.Name(), "fd", fd.Name())); err == nil && link == target {
				return pid
			}
		}
	}
	return 0
}

// gcLogPath reads the file of -Xlog:gc...:file=PATH[:...] from a JVM's arguments.
func gcLogPath(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-Xlog:gc") {
			continue
		}
		if i := strings.Index(a, ":file="); i >= 0 {
			path := a[i+len(":file="):]
			if j := strings.IndexByte(path, ':'); j >= 0 {
				path = path[:j]
			}
			return strings.Trim(path, `"`)
		}
	}
	return ""
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on every
// Linux architecture Go runs on.
const clockTicks = 100

// CPU is the process's CPU time so far (user and system), from /proc/PID/stat.
func (p *Process) CPU() (time.Duration, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(p.PID), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces: count from after it.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, fmt.Errorf("pid %d: unreadable stat", p.PID)
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("pid %d: short stat", p.PID)
	}
	// utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pid %d: unreadable CPU times", p.PID)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// GCPauses are the stop-the-world pauses a JVM logged in a window.
type GCPauses struct {
	Count, TotalMicros, MaxMicros int64
}

// gcPause is a unified-logging line of a pause with its wall-clock decoration:
// "[2026-11-24T06:29:27.249+0000][10.433s] GC(9) Pause Young (Normal) (G1 Evacuation Pause)
// 364M->34M(512M) 37.689ms". G1, Parallel, Serial and Shenandoah name their pauses "Pause";
// ZGC's and Shenandoah's concurrent phases and G1's "Concurrent Mark Cycle" do not stop the
// application and are not counted.
var gcPause = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4})\].*\bGC\(\d+\) Pause .* ([\d.]+)ms$`)

// ReadGCLog sums the pauses logged in [from, to] in a JVM's gc log (its current file; a
// rotation inside the window loses the lines before it).
func ReadGCLog(path string, from, to time.Time) (GCPauses, error) {
	f, err := os.Open(path)
	if err != nil {
		return GCPauses{}, err
	}
	defer func() { _ = f.Close() }()
	var out GCPauses
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if at, us, ok := parsePause(sc.Text()); ok && !at.Before(from) && !at.After(to) {
			out.add(us)
		}
	}
	return out, sc.Err()
}

// maxPauseMillis bounds a pause read from a log line: a day, beyond any real pause and well
// inside what microseconds in an int64 hold (a digit string of hundreds of digits parses as
// a float64 too large to convert).
const maxPauseMillis = 24 * 3600 * 1000

// parsePause reads a gc log line: when a pause was logged and how long it took, ok false for
// any other line.
func parsePause(line string) (at time.Time, micros int64, ok bool) {
	// Most lines of a gc log are not pauses, and the expression backtracks over each of them
	// (a third of a writer's CPU around its window, docs/writer-efficiency.md): a line the
	// expression matches holds ") Pause ", so one without it is skipped before the expression.
	if !strings.Contains(line, ") Pause ") {
		return time.Time{}, 0, false
	}
	m := gcPause.FindStringSubmatch(line)
	if m == nil {
		return time.Time{}, 0, false
	}
	at, err := time.Parse("2006-01-02T15:04:05.000-0700", m[1])
	if err != nil {
		return time.Time{}, 0, false
	}
	ms, err := strconv.ParseFloat(m[2], 64)
	if err != nil || ms > maxPauseMillis {
		return time.Time{}, 0, false
	}
	return at, int64(math.Round(ms * 1000)), true
}

func (g *GCPauses) add(micros int64) {
	g.Count++
	g.TotalMicros += micros
	g.MaxMicros = max(g.MaxMicros, micros)
}
