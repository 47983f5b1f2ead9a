//go:build !linux

package nodeproc

import (
	"errors"
	"net"
)

// listenerInode has no socket diagnostics to ask off Linux: FindProcess reads /proc's tables.
func listenerInode(int, net.IP, int) (uint32, error) {
	return 0, errors.New("socket diagnostics are Linux's")
}
