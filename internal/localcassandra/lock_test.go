package localcassandra

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Locks of this package and flock(1), which shell scripts (hack/bench-writer.sh) use, are the
// same flock(2) locks: shared ones coexist, an exclusive one excludes both kinds.
func TestLockInteroperatesWithFlock1(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) (util-linux) is not installed")
	}
	path := filepath.Join(t.TempDir(), "users.lock")
	a, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close() }()
	b, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()

	if !a.Try(Shared) || !b.Try(Shared) {
		t.Fatal("two shared locks do not coexist")
	}
	if b.Try(Exclusive) {
		t.Fatal("exclusive lock taken while another holder has it shared")
	}
	// flock(2) drops the shared lock in a failed conversion; Try takes it again, so the
	// holder is never without it between attempts.
	if b.Mode() != Shared {
		t.Errorf("after a failed conversion Mode = %v, want Shared", b.Mode())
	}
	if err := exec.Command("flock", "-n", "-x", path, "true").Run(); err == nil {
		t.Error("flock -x succeeded after a failed conversion: the shared lock was lost")
	}
	b.Unlock()
	if out, err := exec.Command("flock", "-n", "-s", path, "true").CombinedOutput(); err != nil {
		t.Errorf("flock -s beside a shared Lock: %v %s", err, out)
	}
	if err := exec.Command("flock", "-n", "-x", path, "true").Run(); err == nil {
		t.Error("flock -x succeeded while a Lock is held shared")
	}
	a.Unlock()
	if !a.Try(Exclusive) {
		t.Fatal("exclusive lock refused with no other holder")
	}
	if err := exec.Command("flock", "-n", "-s", path, "true").Run(); err == nil {
		t.Error("flock -s succeeded while a Lock is held exclusively")
	}
	a.Unlock()

	// A shell holding the lock exclusively makes Wait wait, and Wait takes it once released.
	hold := exec.Command("flock", "-x", path, "sleep", "1")
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for exec.Command("flock", "-n", "-s", path, "true").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatal("flock -x did not take the lock")
		}
		time.Sleep(20 * time.Millisecond)
	}
	waited := false
	start := time.Now()
	if err := a.Wait(context.Background(), Exclusive, 10*time.Second, func() { waited = true }); err != nil {
		t.Fatal(err)
	}
	if !waited || time.Since(start) < 200*time.Millisecond {
		t.Errorf("Wait returned after %v without waiting for the shell's lock (waiting called: %v)", time.Since(start), waited)
	}
	a.Unlock()

	// A bounded wait fails with the lock's name.
	if !b.Try(Exclusive) {
		t.Fatal("exclusive lock refused")
	}
	err = a.Wait(context.Background(), Shared, 100*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Wait on a held lock = %v, want a timeout naming %s", err, path)
	}
}
