//go:build unix

package brokertest

import (
	"errors"
	"syscall"
)

// running reports whether process pid exists (signal 0 checks without
// sending anything; a process of another user still exists).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
