//go:build unix && !linux

package realcli

import "syscall"

// sysProcAttr puts the child in a process group of its own: the lab
// interrupts the group, never its own terminal's. The parent pipe (see
// watchParent) ends it if natslab dies first.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
