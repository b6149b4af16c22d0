package prefault

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14); older kernels
// refuse it, and nothing is mapped ahead.
const madvPopulateWrite = 23

// done is closed once the spans are mapped (or found not to be there).
var done = make(chan struct{})

// mapped is what mapAhead asked the kernel to map, for the tests.
var mapped struct{ zeroed, heap span }

// newest keeps the object whose address says where the heap is growing.
var newest *[64]byte

func init() {
	go func() {
		mapAhead()
		close(done)
	}()
}

func mapAhead() {
	var buf [16 << 10]byte
	n := readMaps(buf[:])
	newest = new([64]byte)
	zeroed, heap := ranges(buf[:n], uintptr(unsafe.Pointer(newest)))
	mapped.zeroed, mapped.heap = zeroed, heap
	// The heap first: it is being written already, the width table a
	// little later.
	for _, s := range []span{heap, zeroed} {
		if s.len() > 0 {
			// An error leaves the pages to be mapped as they are written.
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, s.start, s.len(), madvPopulateWrite)
		}
	}
}

// readMaps reads as much of /proc/self/maps as fits in buf: the mappings
// come in address order, the executable's and the heap's before the
// shared libraries' and the threads' stacks.
func readMaps(buf []byte) int {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return n
}
