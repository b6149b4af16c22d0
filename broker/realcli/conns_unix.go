//go:build unix

package realcli

import (
	"net/netip"
	"os"
	"strconv"
	"syscall"
)

// localConns lists the local address of each of this process's connected
// TCP sockets, read from the kernel (getpeername, getsockname) for each
// open descriptor.
func localConns() []netip.AddrPort {
	entries, err := os.ReadDir("/dev/fd")
	if err != nil {
		return nil
	}
	var out []netip.AddrPort
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, err := syscall.Getpeername(fd); err != nil {
			continue // not a connected socket (or closed meanwhile)
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			continue
		}
		switch a := sa.(type) {
		case *syscall.SockaddrInet4:
			out = append(out, netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)))
		case *syscall.SockaddrInet6:
			out = append(out, netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)))
		}
	}
	return out
}
