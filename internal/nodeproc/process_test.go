package nodeproc

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The process that listens on an address and port is found through the kernel's socket
// table: here, the test itself.
func TestFindProcessByItsListeningSocket(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	port := l.Addr().(*net.TCPAddr).Port
	p, ok := FindProcess("127.0.0.1", port)
	if !ok || p.PID != os.Getpid() {
		t.Fatalf("FindProcess(127.0.0.1, %d) = %+v, %v; want this process, %d", port, p, ok, os.Getpid())
	}
	if _, ok := FindProcess("127.0.0.2", port); ok {
		t.Error("found a listener on an address nobody listens on")
	}
	spin := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(spin) {
	}
	if cpu, err := p.CPU(); err != nil || cpu <= 0 {
		t.Errorf("CPU() = %v, %v; want the time this test spent", cpu, err)
	}
}

func TestGCLogPath(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"local node": {[]string{"java", "-Xmx512M", "-Xlog:gc=info:file=/var/n1/logs/gc.log:time,uptime:filecount=3,filesize=10M", "X"}, "/var/n1/logs/gc.log"},
		"file last":  {[]string{"-Xlog:gc*:file=/tmp/gc.log"}, "/tmp/gc.log"},
		"to stdout":  {[]string{"-Xlog:gc"}, ""},
		"none":       {[]string{"java", "-Xmx1G"}, ""},
	}
	for name, tc := range tests {
		if got := gcLogPath(tc.args); got != tc.want {
			t.Errorf("%s: gcLogPath = %q, want %q", name, got, tc.want)
		}
	}
}

// Pauses are counted in the window only; concurrent phases and other lines are not pauses.
func TestReadGCLog(t *testing.T) {
	log := `[2026-11-24T06:29:16.821+0000][0.006s] Using G1
[2026-11-24T06:29:18.100+0000][1.300s] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 100M->20M(512M) 9.000ms
[2026-11-24T06:29:21.019+0000][4.204s] GC(8) Concurrent Mark Cycle
[2026-11-24T06:29:21.046+0000][4.231s] GC(8) Pause Remark 22M->22M(512M) 2.005ms
[2026-11-24T06:29:21.069+0000][4.253s] GC(8) Pause Cleanup 26M->26M(512M) 0.096ms
[2026-11-24T06:29:21.077+0000][4.262s] GC(8) Concurrent Mark Cycle 57.846ms
[2026-11-24T06:29:27.249+0000][10.433s] GC(9) Pause Young (Prepare Mixed) (G1 Evacuation Pause) 364M->34M(512M) 37.689ms
[2026-11-24T06:29:40.000+0000][23.000s] GC(10) Pause Full (System.gc()) 300M->30M(512M) 120.000ms
`
	path := filepath.Join(t.TempDir(), "gc.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 24, 6, 29, 20, 0, time.UTC)
	to := from.Add(10 * time.Second)
	got, err := ReadGCLog(path, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := GCPauses{Count: 3, TotalMicros: 2005 + 96 + 37689, MaxMicros: 37689}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadGCLog (-want +got):\n%s", diff)
	}
	if _, err := ReadGCLog(filepath.Join(t.TempDir(), "none"), from, to); err == nil {
		t.Error("a missing log read as no pauses")
	}
}

// A pause too long to be real (a corrupt line) is not read, rather than overflowing the sum.
func TestParsePauseRefusesAbsurdDurations(t *testing.T) {
	line := "[2026-11-24T06:29:27.249+0000][10.433s] GC(9) Pause Young (Normal) (G1 Evacuation Pause) 364M->34M(512M) " +
		strings.Repeat("9", 400) + "ms"
	if _, _, ok := parsePause(line); ok {
		t.Error("a pause of 400 digits of milliseconds was read")
	}
	if _, us, ok := parsePause("[2026-11-24T06:29:27.249+0000][10.433s] GC(9) Pause Young (Normal) (G1 Evacuation Pause) 364M->34M(512M) 37.689ms"); !ok || us != 37689 {
		t.Errorf("a real pause read as %d µs, %v", us, ok)
	}
}

// A JVM without -Djava.net.preferIPv4Stack=true listens on an IPv6 socket that takes IPv4
// too: bound to one address it shows in /proc/net/tcp6 as ::ffff:a.b.c.d, bound to all as
// ::. Either is found by the IPv4 address a writer connects to.
func TestFindProcessOnADualStackSocket(t *testing.T) {
	all, err := net.Listen("tcp", ":0") // Go's dual-stack wildcard, [::]
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = all.Close() }()
	port := all.Addr().(*net.TCPAddr).Port
	if p, ok := FindProcess("127.0.0.1", port); !ok || p.PID != os.Getpid() {
		t.Errorf("FindProcess(127.0.0.1, %d) on [::] = %+v, %v; want this process", port, p, ok)
	}

	fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Close(fd) }()
	mapped := &syscall.SockaddrInet6{Addr: [16]byte{10: 0xff, 11: 0xff, 12: 127, 13: 0, 14: 0, 15: 1}}
	if err := syscall.Bind(fd, mapped); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 1); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port = sa.(*syscall.SockaddrInet6).Port
	if p, ok := FindProcess("127.0.0.1", port); !ok || p.PID != os.Getpid() {
		t.Errorf("FindProcess(127.0.0.1, %d) on ::ffff:127.0.0.1 = %+v, %v; want this process", port, p, ok)
	}
	if _, ok := FindProcess("127.0.0.3", port); ok {
		t.Error("found a listener bound to ::ffff:127.0.0.1 by another address")
	}
}

// The kernel's socket diagnostics, which FindProcess asks first, name the same listening
// socket as /proc's tables, for an IPv4 listener and a dual-stack one, and no socket for a
// port where only a connection is (a client's end is not in LISTEN).
func TestListenerInodeAgreesWithProcNetTCP(t *testing.T) {
	v4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = v4.Close() }()
	dual, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dual.Close() }()
	client, err := net.Dial("tcp4", v4.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	ip := net.ParseIP("127.0.0.1")
	for _, tc := range []struct {
		name  string
		port  int
		table string
		found bool
	}{
		{"an IPv4 listener", v4.Addr().(*net.TCPAddr).Port, "tcp", true},
		{"a dual-stack listener", dual.Addr().(*net.TCPAddr).Port, "tcp6", true},
		{"a client's port", client.LocalAddr().(*net.TCPAddr).Port, "tcp", false},
	} {
		got, err := diagnosedInode(ip, tc.port)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := listeningInode(filepath.Join("/proc", "net", tc.table), ip.To4(), tc.port)
		if got != want || (got != "") != tc.found {
			t.Errorf("%s: socket diagnostics say inode %q, /proc/net/%s %q; want them equal and found=%v", tc.name, got, tc.table, want, tc.found)
		}
	}
}
