package localcassandra

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Mode is how a Lock is held.
type Mode int

// Lock modes, those of flock(2).
const (
	Unlocked  Mode = 0
	Shared    Mode = syscall.LOCK_SH
	Exclusive Mode = syscall.LOCK_EX
)

// Lock is an flock(2) lock on a file, the one locking protocol of the local cluster: flock(1)
// in shell scripts takes the same locks. A lock belongs to the open file, so a process holds
// one Lock per file and converts it rather than opening the file twice (two opens would
// conflict with each other). Files are opened close-on-exec: a node started while a lock is
// held does not keep it for its life.
type Lock struct {
	f    *os.File
	mode Mode
}

// OpenLock opens (creating) the lock file at path, unlocked.
func OpenLock(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Lock{f: f}, nil
}

// Name is the lock file's path.
func (l *Lock) Name() string { return l.f.Name() }

// Mode is how the lock is held.
func (l *Lock) Mode() Mode { return l.mode }

// Try takes (or converts to) m without blocking and tells whether it holds it. Converting is
// not atomic in flock(2): the lock held is removed before the new one is asked for, so a
// conversion that fails has dropped it. Try then takes the lock held before again at once:
// a process that waits for exclusive use while its own tests use the cluster under a shared
// lock would otherwise hold nothing between its attempts, and another process could replace
// the cluster under those tests. Should another process take the lock in that instant, the
// lock counts as not held.
func (l *Lock) Try(m Mode) bool {
	prev := l.mode
	if l.flock(m) {
		l.mode = m
		return true
	}
	l.mode = Unlocked
	if prev != Unlocked && prev != m && l.flock(prev) {
		l.mode = prev
	}
	return false
}

func (l *Lock) flock(m Mode) bool {
	for {
		err := syscall.Flock(int(l.f.Fd()), int(m)|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

// Wait takes m, polling until it succeeds, ctx ends or timeout passes; waiting is called
// once, before the first wait, so the caller can say what it waits for.
func (l *Lock) Wait(ctx context.Context, m Mode, timeout time.Duration, waiting func()) error {
	deadline := time.Now().Add(timeout)
	for first := true; !l.Try(m); first = false {
		if first && waiting != nil {
			waiting()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, l.Name())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}

// Unlock releases the lock and keeps the file open.
func (l *Lock) Unlock() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.mode = Unlocked
}

// Close releases the lock and closes the file.
func (l *Lock) Close() error {
	l.mode = Unlocked
	return l.f.Close()
}
