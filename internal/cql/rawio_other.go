//go:build !linux

package cql

import (
	"errors"
	"net"
	"syscall"
)

// Elsewhere than Linux every connection is read and written through net.Conn.

func rawSocket(net.Conn) syscall.RawConn { return nil }

func sysRead(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }

type socketWriter struct{}

func (*socketWriter) write(syscall.RawConn, []byte) error { return errors.ErrUnsupported }
