package realcli_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"natslab/broker/brokertest"
	"natslab/broker/realcli"
)

// No real CLI outlives natslab, even when natslab is killed with SIGKILL
// and has no chance to stop it: natslab run starts `service serve`
// (which runs until interrupted), is killed, and its child must end. The
// server is the test's, so the child keeps its connection and has no
// reason of its own to stop.
func TestChildDiesWithNatslab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds natslab")
	}
	bin := brokertest.Natslab(t)
	script := filepath.Join(t.TempDir(), "serve.nats")
	if err := os.WriteFile(script, []byte("service serve orphan-check\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := brokertest.Start(t)
	cmd := exec.CommandContext(ctx, bin, "run", "--store", t.TempDir(), "--server", srv.ClientURL(), script)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	// The service's banner is the child's first line: it is running.
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(first, "orphan-check") {
		t.Fatalf("service serve did not start: %q %v", first, err)
	}
	child := realChild(t, cmd.Process.Pid)
	pidfd, err := unix.PidfdOpen(child, 0)
	if err != nil {
		t.Fatalf("watching the child %d: %v", child, err)
	}
	defer unix.Close(pidfd)

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The pidfd becomes readable when the child has exited.
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(time.Minute/time.Millisecond))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("the real CLI (pid %d) outlived natslab by a minute", child)
		}
		return
	}
}

// realChild finds the child of pid running the real CLI.
func realChild(t *testing.T, pid int) int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			c, err := strconv.Atoi(field)
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c))
			if strings.Contains(string(cmdline), realcli.ChildArg) {
				return c
			}
		}
	}
	t.Fatalf("natslab (pid %d) has no real CLI child", pid)
	return 0
}
