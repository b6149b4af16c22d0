package brokertest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Terminal is a real terminal for tests that use a binary as a person
// would: a tmux server of its own (its own socket, no user config) with one
// pane running a shell. Lines are typed into the shell, so whatever runs
// there leaves the terminal to the shell afterwards, and the test can look
// at what it left behind (stty -a, the screen, $?).
type Terminal struct {
	t    testing.TB
	sock string
}

var terminals atomic.Int64

// StartTerminal opens a w×h terminal running sh with the given environment
// added (HOME=…, say), its prompt "$ ". It skips the test when tmux is not
// installed (.ci/run installs it) and is closed when the test ends.
func StartTerminal(t testing.TB, w, h int, env ...string) *Terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	x := &Terminal{t: t, sock: fmt.Sprintf("natslab-test-%d-%d", os.Getpid(), terminals.Add(1))}
	args := []string{"new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "env"}
	args = append(args, env...)
	args = append(args, "PS1=$ ", "sh")
	x.Tmux(args...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", x.sock, "-f", "/dev/null", "kill-server").Run() })
	x.WaitFor("the shell's prompt", func(s string) bool { return strings.Contains(s, "$") })
	return x
}

// Tmux runs a tmux command on this terminal's server and returns its output.
func (x *Terminal) Tmux(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Screen is what the terminal shows now, as text.
func (x *Terminal) Screen() string { return x.Tmux("capture-pane", "-p") }

// Type types text literally, then Enter.
func (x *Terminal) Type(text string) {
	x.t.Helper()
	x.Tmux("send-keys", "-l", text)
	x.Tmux("send-keys", "Enter")
}

// Keys presses keys by tmux's names (C-c, Up, Enter…).
func (x *Terminal) Keys(keys ...string) {
	x.t.Helper()
	x.Tmux(append([]string{"send-keys"}, keys...)...)
}

// WaitFor looks at the screen until cond holds, failing the test with the
// screen after 30 s. It returns the screen that satisfied cond.
func (x *Terminal) WaitFor(what string, cond func(screen string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := x.Screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitText waits until the screen shows every one of want.
func (x *Terminal) WaitText(want ...string) string {
	x.t.Helper()
	return x.WaitFor(strings.Join(want, " and "), func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// ShellPID is the process id of the pane's shell.
func (x *Terminal) ShellPID() int {
	x.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(x.Tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		x.t.Fatalf("the pane's pid: %v", err)
	}
	return pid
}

// ChildPID waits until the shell runs a program named name and returns its
// process id.
func (x *Terminal) ChildPID(name string) int {
	x.t.Helper()
	shell := x.ShellPID()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(shell), "-x", name).Output()
		if pid, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			return pid
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("the shell runs no %s; screen:\n%s", name, x.Screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TerminalModes runs stty -a in the shell and returns its settings, one
// word each ("icanon", "-echo", …), for a test to check that a program left
// the terminal as it found it.
func (x *Terminal) TerminalModes() map[string]bool {
	x.t.Helper()
	x.Type("clear; stty -a; echo stty-done")
	s := x.WaitFor("stty -a", func(s string) bool { return strings.Contains(s, "\nstty-done") })
	modes := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\n' || r == ';' }) {
		modes[w] = true
	}
	return modes
}

// HostIPv4 lists this machine's IPv4 addresses beyond loopback, the ones a
// room reaches it by, or skips the test on a machine that has none.
func HostIPv4(t testing.TB) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	if len(out) == 0 {
		t.Skip("this machine has no network address beyond loopback")
	}
	return out
}
