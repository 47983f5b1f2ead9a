package writer

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sleeper waits until an operation's intended start on a timerfd read through the runtime's
// network poller. time.Sleep cannot do that finely: the poller waits in whole milliseconds
// when the process is idle, so an idle writer woke up to a millisecond late and that showed
// as response latency. A timerfd has no timer slack, and the poller wakes the moment it
// fires, without holding a thread or a P while it waits (a blocking clock_nanosleep would
// hold the writer's only P).
//
// Setting and reading the timer are raw system calls, as the direct path's socket reads and
// writes are (internal/cql/rawio_linux.go), and neither of them blocks. Through
// unix.TimerfdSettime and os.File.Read each wait entered the system call the way a blocking
// one does, which wakes the runtime's monitor thread whenever every P had gone idle, which is
// the state an open loop waits in: at 5,000 ops/s with a 1 ms tick that cost a futex wake,
// the monitor's sleep and two of its nanosleeps a tick (`strace -c -f`,
// docs/writer-efficiency.md). The wait also no longer starts with a read of a timer just set,
// which could only say it has not fired: it goes to the poller first (see expired).
type sleeper struct {
	fd int
	f  *os.File
	rc syscall.RawConn
	// now is the writer's clock.
	now func() time.Time

	// The state of one wait, kept here so that the callback the poller calls is made once,
	// not as a closure escaping to the heap at every wait.
	buf      [8]byte
	deadline time.Time
	first    bool
	err      syscall.Errno
	fn       func(fd uintptr) bool
	// reads counts the reads of the timer, for the tests.
	reads int
}

func newSleeper(now func() time.Time) *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &sleeper{fd: -1, now: now}
	}
	// A non-blocking descriptor becomes pollable: a wait parks the goroutine, not the thread.
	s := &sleeper{fd: fd, f: os.NewFile(uintptr(fd), "timerfd"), now: now}
	if rc, err := s.f.SyscallConn(); err == nil {
		s.rc = rc
	}
	s.fn = s.expired
	return s
}

// until returns at t, or at once when t has passed.
func (s *sleeper) until(t time.Time) {
	d := t.Sub(s.now())
	if d <= 0 {
		return
	}
	if s.rc == nil {
		time.Sleep(d)
		return
	}
	// The deadline is on the real clock, read before the timer is set, so the timer fires
	// no earlier than it (the writer's clock may be offset from it).
	s.deadline = time.Now().Add(d)
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if _, _, e := syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(s.fd), 0,
		uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		time.Sleep(d)
		return
	}
	s.first, s.err = true, 0
	if err := s.rc.Read(s.fn); err != nil || s.err != 0 {
		time.Sleep(t.Sub(s.now()))
	}
}

// expired is the poller's callback for a wait: true once the timer has fired (or reading it
// failed, in s.err), false to wait for it in the poller. The poller forgets readiness that
// came before the wait began (RawConn.Read resets it), so the time decides: before the
// deadline the timer cannot have fired, its expiry is still to come and wakes the wait; from
// the deadline on it has fired, or fires within the microseconds between reading the clock
// and setting the timer, and only then is the timer read to tell which.
//
// A wait the poller woke does not read the timer: the next timerfd_settime resets the count
// of expiries (fs/timerfd.c, timerfd_setup) and re-arms the timer, and its next expiry wakes
// the edge-triggered poller again, whether or not the last one was read. That spares one of
// the two system calls each wait made: at a 1 ms tick, a thousand a second.
func (s *sleeper) expired(fd uintptr) bool {
	first := s.first
	s.first = false
	if time.Now().Before(s.deadline) {
		return false
	}
	if !first {
		return true // woken by the poller at or after the deadline: by the expiry
	}
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&s.buf[0])), uintptr(len(s.buf)))
		s.reads++
		switch e {
		case 0:
			return true
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			s.err = e
			return true
		}
	}
}

func (s *sleeper) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
}
