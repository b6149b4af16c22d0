//go:build unix

package realcli

import (
	"os"
	"syscall"
)

// interrupt sends SIGINT to the child's process group, as Ctrl-C in a
// terminal would.
func interrupt(p *os.Process) error {
	if p == nil {
		return nil
	}
	return syscall.Kill(-p.Pid, syscall.SIGINT)
}

// killGroup kills whatever the child started and left running.
func killGroup(p *os.Process) {
	if p != nil {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	}
}

func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
