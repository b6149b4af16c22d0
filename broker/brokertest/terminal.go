package brokertest

import (
	"bufio"
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
	t       testing.TB
	sock    string
	printed <-chan struct{}
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
	x.printed = WatchTmux(t, x.sock)
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

// WaitFor looks at the screen until cond holds, again each time the
// program in the pane prints, failing the test with the screen after 30 s.
// It returns the screen that satisfied cond.
func (x *Terminal) WaitFor(what string, cond func(screen string) bool) string {
	x.t.Helper()
	return WaitScreen(x.t, what, x.printed, x.Screen, cond)
}

// WatchTmux follows the panes of the tmux server on socket sock through a
// control-mode client: the channel receives a value (coalesced) each time
// a program prints to its terminal, and is closed when the server ends.
// A control-mode client leaves the window's size alone.
func WatchTmux(t testing.TB, sock string) <-chan struct{} {
	t.Helper()
	cmd := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "-C", "attach")
	in, err := cmd.StdinPipe() // control mode lasts while its input is open
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("tmux control mode: %v", err)
	}
	printed := make(chan struct{}, 1)
	go func() {
		defer close(printed)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			// %session-changed comes once the client is attached: whatever
			// was printed before it is on the screen, and all after it
			// comes as %output, so a look after it misses nothing.
			if strings.HasPrefix(line, "%output ") || strings.HasPrefix(line, "%extended-output ") || strings.HasPrefix(line, "%session-changed ") {
				select {
				case printed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return printed
}

// WaitScreen reads a screen with look until cond holds, again each time
// printed says the program printed, failing the test after 30 s.
func WaitScreen(t testing.TB, what string, printed <-chan struct{}, look func() string, cond func(screen string) bool) string {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		s := look()
		if cond(s) {
			return s
		}
		select {
		case _, open := <-printed:
			if !open {
				printed = nil // the terminal is gone: only the timeout is left
			}
		case <-timeout.C:
			t.Fatalf("timed out waiting for %s; screen:\n%s", what, look())
		}
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
// process id. It looks again each time something prints: the program's
// start does, as does its first drawing.
func (x *Terminal) ChildPID(name string) int {
	x.t.Helper()
	shell := x.ShellPID()
	pid := 0
	x.WaitFor("the shell to run "+name, func(string) bool {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(shell), "-x", name).Output()
		var err error
		pid, err = strconv.Atoi(strings.TrimSpace(string(out)))
		return err == nil
	})
	return pid
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
