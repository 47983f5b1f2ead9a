//go:build linux

package cql

import (
	"net"
	"os"
	"syscall"
	"unsafe"
)

// A plain TCP connection's reads and writes skip the runtime's system-call bookkeeping.
// syscall.Read and Write enter the system call through entersyscall, which wakes the
// runtime's monitor thread (sysmon) whenever it went to sleep because every P was idle;
// with one request in flight the writer is idle between each answer and the next request,
// so every operation paid a futex wake and a sleep of that thread, about a tenth of the
// client's CPU in the profile. The socket is non-blocking (the runtime's poller owns it), so
// read(2) and write(2) return at once; RawSyscall makes them without telling the scheduler,
// as the runtime makes its own non-blocking calls, and the poller still parks the goroutine
// when a call would block (RawConn.Read and Write wait for readiness when f returns false).

// rawSocket returns the socket under c for reads and writes of its own, or nil when c is not
// a plain TCP connection (TLS, a pipe): those are read and written through c.
func rawSocket(c net.Conn) syscall.RawConn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// sysRead is read(2) on a non-blocking descriptor.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// sysWrite is write(2) on a non-blocking descriptor.
func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// socketWriter writes all of a buffer on a socket, waiting in the poller while the socket's
// buffer is full (until the write deadline). It keeps its callback and the state the callback
// works on from one write to the next: a closure made for each write escaped to the heap with
// the buffer and the error it captured, two allocations a write. One goroutine writes at a
// time (batchConn.sending).
type socketWriter struct {
	p   []byte
	err error
	fn  func(fd uintptr) bool
}

// write writes all of p on rc.
func (w *socketWriter) write(rc syscall.RawConn, p []byte) error {
	if w.fn == nil {
		w.fn = w.loop
	}
	w.p, w.err = p, nil
	err := rc.Write(w.fn)
	w.p = nil
	if err != nil {
		return err
	}
	return w.err
}

func (w *socketWriter) loop(fd uintptr) bool {
	for len(w.p) > 0 {
		n, e := sysWrite(fd, w.p)
		switch e {
		case 0:
			w.p = w.p[n:]
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			w.err = os.NewSyscallError("write", e)
			return true
		}
	}
	return true
}
