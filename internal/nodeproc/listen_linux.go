package nodeproc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// The layouts of linux/inet_diag.h this file reads and writes: x/sys/unix names the
// constants but has no types for them.
const (
	nlmsgHeaderLen  = 16 // struct nlmsghdr
	inetDiagReqLen  = 56 // struct inet_diag_req_v2: family, protocol, ext, pad, states, inet_diag_sockid
	inetDiagMsgLen  = 72 // struct inet_diag_msg, up to and with idiag_inode
	inetDiagSrc     = 8  // the offset of id.idiag_src in inet_diag_msg (after family, state, timer, retrans, sport, dport)
	inetDiagSport   = 4  // the offset of id.idiag_sport (big-endian)
	inetDiagInode   = 68 // the offset of idiag_inode
	tcpListenState  = 10 // TCP_LISTEN in include/net/tcp_states.h
	diagRecvBufSize = 32 << 10
)

// listenerInode asks the kernel's socket diagnostics (NETLINK_SOCK_DIAG, what ss(8) reads)
// for the TCP sockets of one address family in LISTEN, and returns the inode of the one on
// ip:port or on the family's wildcard address, 0 when none listens there. A scan of
// /proc/net/tcp makes the kernel print every socket of the network namespace, the connections
// of a busy node and its TIME_WAITs included, and was most of what finding a node's process
// cost a writer; a dump asked for listeners alone walks the listening table only
// (inet_diag_dump_icsk skips the established one when no other state is asked for).
func listenerInode(family int, ip net.IP, port int) (uint32, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_INET_DIAG)
	if err != nil {
		return 0, fmt.Errorf("socket diagnostics: %w", err)
	}
	defer func() { _ = unix.Close(fd) }()

	req := make([]byte, nlmsgHeaderLen+inetDiagReqLen)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	req[nlmsgHeaderLen] = uint8(family)
	req[nlmsgHeaderLen+1] = unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(req[nlmsgHeaderLen+4:], 1<<tcpListenState)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, fmt.Errorf("socket diagnostics: %w", err)
	}

	addrLen := 4
	want := ip.To4()
	if family == unix.AF_INET6 {
		addrLen, want = 16, ip.To16() // 127.0.0.1 as ::ffff:127.0.0.1
	}
	wildcard := make([]byte, addrLen)
	buf := make([]byte, diagRecvBufSize)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return 0, fmt.Errorf("socket diagnostics: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return 0, fmt.Errorf("socket diagnostics: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return 0, nil
			case unix.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if errno := int32(binary.NativeEndian.Uint32(m.Data)); errno != 0 {
						return 0, fmt.Errorf("socket diagnostics: %w", syscall.Errno(-errno))
					}
				}
				return 0, fmt.Errorf("socket diagnostics: an error message")
			}
			d := m.Data
			if len(d) < inetDiagMsgLen || int(binary.BigEndian.Uint16(d[inetDiagSport:])) != port {
				continue
			}
			if src := d[inetDiagSrc : inetDiagSrc+addrLen]; bytes.Equal(src, want) || bytes.Equal(src, wildcard) {
				return binary.NativeEndian.Uint32(d[inetDiagInode:]), nil
			}
		}
	}
}
