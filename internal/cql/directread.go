package cql

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"syscall"
)

// readBuffer is the reader's buffer: many answers at a time, and any answer of a write.
const readBuffer = 64 << 10

// frames holds bytes read from the node and not yet parsed: buf[r:w]. A response longer
// than the buffer grows it by doubling as its bytes arrive, never past the length its header
// claims, so a corrupt length costs no more memory than twice the bytes that came.
type frames struct {
	buf  []byte
	r, w int
	// need is the length of the frame at r once its header is in, else 0.
	need int
}

// space returns where the next bytes go, making room first.
func (f *frames) space() []byte {
	if f.r == f.w {
		f.r, f.w = 0, 0
		if len(f.buf) > maxRetained {
			f.buf = make([]byte, readBuffer)
		}
	}
	if f.w == len(f.buf) && f.r > 0 {
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	}
	if f.w == len(f.buf) {
		// A frame larger than the buffer: f.need > len(f.buf).
		grown := make([]byte, min(2*len(f.buf), f.need))
		copy(grown, f.buf[:f.w])
		f.buf = grown
	}
	return f.buf[f.w:]
}

// consume hands every whole response in the buffer to its call.
func (f *frames) consume(d *dconn) error {
	for f.w-f.r >= headerLen {
		h := f.buf[f.r : f.r+headerLen]
		n, err := bodyLen(h)
		if err != nil {
			return err
		}
		f.need = headerLen + n
		if f.w-f.r < f.need {
			return nil
		}
		d.answer(int16(binary.BigEndian.Uint16(h[2:4])), h[1], h[4], f.buf[f.r+headerLen:f.r+f.need])
		f.r += f.need
		f.need = 0
	}
	return nil
}

// read parses the node's responses and hands each to the call waiting on its stream, until
// the connection fails. br is what the handshake read through; a plain TCP socket is read
// directly after what br holds already.
func (d *dconn) read(br *bufio.Reader) {
	f := &frames{buf: make([]byte, max(readBuffer, br.Buffered()))}
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		f.w = copy(f.buf, b)
	}
	err := f.consume(d)
	switch {
	case err != nil:
	case d.bc.raw != nil:
		err = d.readRaw(f)
	default:
		err = d.readFrom(br, f)
	}
	d.fail(err)
}

// readFrom reads from r until it fails.
func (d *dconn) readFrom(r io.Reader, f *frames) error {
	for {
		// Before reading again, let the goroutines just answered run and send their next
		// requests: the answers to those, and to others, then come back together in fewer
		// reads (with one thread, the reader would otherwise read one answer at a time).
		runtime.Gosched()
		n, err := r.Read(f.space())
		f.w += n
		if cerr := f.consume(d); cerr != nil {
			return cerr
		}
		if err != nil {
			return fmt.Errorf("reading from %s: %w", d.addr, err)
		}
	}
}

// readRaw reads the plain TCP socket with read(2) of its own (rawio_linux.go) until it
// fails. A read that returns less than it had room for emptied the socket's queue, so the
// reader waits in the poller for the next bytes rather than reading once more to be told
// there are none (the poller is edge-triggered, and bytes that arrive after that read mark
// the socket readable again); nginx's recv does the same. With one request in flight that
// spares one of the three system calls each answer took.
func (d *dconn) readRaw(f *frames) error {
	var rerr error
	err := d.bc.raw.Read(func(fd uintptr) bool {
		for {
			if err := d.bc.extend(d.bc.Conn.SetReadDeadline, &d.bc.readSet); err != nil {
				rerr = err
				return true
			}
			runtime.Gosched() // as in readFrom
			room := f.space()
			n, e := sysRead(fd, room)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return false
			case e != 0:
				rerr = fmt.Errorf("reading from %s: %w", d.addr, e)
				return true
			case n == 0:
				rerr = fmt.Errorf("reading from %s: %w", d.addr, io.EOF)
				return true
			}
			f.w += n
			if err := f.consume(d); err != nil {
				rerr = err
				return true
			}
			if n < len(room) {
				return false
			}
		}
	})
	if err != nil {
		return d.bc.explain("reading from", err)
	}
	return rerr
}
