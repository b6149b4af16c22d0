package main

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitGone returns once process pid has ended, as the kernel tells it: a
// pidfd becomes readable when its process exits, child of ours or not.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // gone already
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(within)
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			t.Fatalf("poll on process %d: %v", pid, err)
		case n == 0:
			t.Fatalf("process %d still runs %v later", pid, within)
		}
		return
	}
}
