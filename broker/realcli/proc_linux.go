package realcli

import "syscall"

// sysProcAttr puts the child in a process group of its own (the lab
// interrupts the group, never its own terminal's) and has the kernel kill
// it if natslab dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
