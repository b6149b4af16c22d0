//go:build !unix

package realcli

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func interrupt(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}

func killGroup(*os.Process) {}

func closeOnExec(int) {}
