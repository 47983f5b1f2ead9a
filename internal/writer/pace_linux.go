package writer

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper waits until an operation's intended start on a timerfd read through the runtime's
// network poller. time.Sleep cannot do that finely: the poller waits in whole milliseconds
// when the process is idle, so an idle writer woke up to a millisecond late and that showed
// as response latency. A timerfd has no timer slack, and the poller wakes the moment it
// fires, without holding a thread or a P while it waits (a blocking clock_nanosleep would
// hold the writer's only P). It costs two system calls an operation, which only an open
// loop pays.
type sleeper struct {
	fd  int
	f   *os.File
	buf [8]byte
	// now is the writer's clock.
	now func() time.Time
}

func newSleeper(now func() time.Time) *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &sleeper{fd: -1, now: now}
	}
	// A non-blocking descriptor becomes pollable: reads park the goroutine, not the thread.
	return &sleeper{fd: fd, f: os.NewFile(uintptr(fd), "timerfd"), now: now}
}

// until returns at t, or at once when t has passed.
func (s *sleeper) until(t time.Time) {
	d := t.Sub(s.now())
	if d <= 0 {
		return
	}
	if s.f == nil {
		time.Sleep(d)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(s.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	if _, err := s.f.Read(s.buf[:]); err != nil {
		time.Sleep(t.Sub(s.now()))
	}
}

func (s *sleeper) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
}
