package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"natslab/broker/brokertest"
)

var exitedRE = regexp.MustCompile(`natslab-exit=\d`)

// A terminal closed (SIGHUP) or a kill (SIGTERM) leaves the lab as quit
// does: the terminal back in its normal modes and off the alternate
// screen, the server shut down with the store released and intact, exit 0.
func TestLabLeavesLikeQuitOnHangupAndTerminate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	bin := natslabBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			store := filepath.Join(dir, "store")
			term := brokertest.StartTerminal(t, 120, 40, "HOME="+dir)
			term.Type(fmt.Sprintf("%s --store %s --listen none; echo natslab-exit=$?", bin, store))
			term.WaitText("Type help for the commands", "JetStream on")
			term.Type("stream add KEEP --subjects keep --defaults")
			term.WaitText("1 stream")
			term.Type("pub keep survived --jetstream")
			term.WaitText("Stored in Stream: KEEP Sequence: 1")

			if err := syscall.Kill(term.ChildPID("natslab"), sig); err != nil {
				t.Fatal(err)
			}
			s := term.WaitFor("natslab to exit", exitedRE.MatchString)
			if !strings.Contains(s, "natslab-exit=0") {
				t.Fatalf("after %v natslab should exit 0:\n%s", sig, s)
			}
			if strings.Contains(s, "Type help for the commands") {
				t.Errorf("the lab's screen is still up after %v:\n%s", sig, s)
			}
			modes := term.TerminalModes()
			for _, m := range []string{"icanon", "echo", "icrnl", "opost"} {
				if !modes[m] || modes["-"+m] {
					t.Errorf("after %v the terminal is left without %s", sig, m)
				}
			}
			// The store is released and holds what was stored.
			cmd := exec.Command(bin, "run", "--store", store, "--listen", "none", "-")
			cmd.Stdin = strings.NewReader("stream get KEEP 1\n")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "survived") {
				t.Fatalf("the store after %v: %v\n%s", sig, err, out)
			}
		})
	}
}

// natslab serve has no configuration file to reload: a hangup stops it
// cleanly, as SIGTERM and Ctrl-C do, so closing its terminal never leaves a
// server holding the store.
func TestServeStopsCleanlyOnHangup(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		// serve inherits the ignored hangup (nohup) and rightly keeps it.
		t.Skip("the tests run with SIGHUP ignored (nohup): serve would keep ignoring it")
	}
	store := t.TempDir()
	cmd, lines := serveProcess(t, store)
	waitLine(t, lines, "natslab is serving NATS at")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, "natslab: stopping")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve should exit 0 on a hangup, got %v", err)
	}
	again := exec.Command(natslabBinary(t), "run", "--store", store, "--listen", "none", "-")
	again.Stdin = strings.NewReader("stream ls\n")
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("the store is still held after serve stopped: %v\n%s", err, out)
	}
}

// Closing the terminal window itself: the kernel hangs up the lab, whose
// writes now fail. It still shuts the server down and releases the store.
func TestLabStopsWhenItsTerminalCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	bin := natslabBinary(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	term := brokertest.StartTerminal(t, 120, 40, "HOME="+dir)
	term.Type(fmt.Sprintf("%s --store %s --listen none", bin, store))
	term.WaitText("Type help for the commands", "JetStream on")
	term.Type("stream add KEEP --subjects keep --defaults")
	term.WaitText("1 stream")
	term.Type("pub keep survived --jetstream")
	term.WaitText("Stored in Stream: KEEP Sequence: 1")
	pid := term.ChildPID("natslab")
	term.Tmux("kill-server")
	waitGone(t, pid, 30*time.Second) // natslab ends once its terminal closed
	cmd := exec.Command(bin, "run", "--store", store, "--listen", "none", "-")
	cmd.Stdin = strings.NewReader("stream get KEEP 1\n")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "survived") {
		t.Fatalf("the store after the terminal closed: %v\n%s", err, out)
	}
}

// natslab run reading its script from a terminal (or a pipe still open)
// stops at Ctrl-C, SIGTERM or SIGHUP without waiting for another line: it
// says where the script stopped, exits 1 (not every line ran), and the
// store is released.
func TestRunStopsOnASignalWhileWaitingForItsNextLine(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("the tests run with SIGHUP ignored (nohup)")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGINT, "interrupt"}, {syscall.SIGTERM, "terminated"}, {syscall.SIGHUP, "hangup"}} {
		t.Run(tc.name, func(t *testing.T) {
			store := t.TempDir()
			cmd := exec.Command(natslabBinary(t), "run", "--store", store, "--listen", "none", "-")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			if _, err := io.WriteString(stdin, "stream ls\n"); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewScanner(stdout)
			if !out.Scan() || out.Text() != "No Streams defined" {
				t.Fatalf("want the first line's answer, got %q (%v)", out.Text(), out.Err())
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() {
				io.Copy(io.Discard, stdout)
				exited <- cmd.Wait()
			}()
			select {
			case err := <-exited:
				if cmd.ProcessState.ExitCode() != 1 {
					t.Fatalf("want exit status 1 after %v, got %v", tc.sig, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("natslab run still waited for a line 30s after %v", tc.sig)
			}
			want := "natslab: " + tc.name + ": the script stopped; no line after line 1 ran\n"
			if stderr.String() != want {
				t.Fatalf("stderr: want %q, got %q", want, stderr.String())
			}
			again := exec.Command(natslabBinary(t), "run", "--store", store, "--listen", "none", "-")
			again.Stdin = strings.NewReader("stream ls\n")
			if out, err := again.CombinedOutput(); err != nil {
				t.Fatalf("the store is still held after the run stopped: %v\n%s", err, out)
			}
		})
	}
}
