package realcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Conn is how the child reaches the lab's broker. It travels in the
// child's environment only: never on a command line, never printed.
type Conn struct {
	URL            string // one URL, or several comma-separated (a cluster)
	User, Password string
	Token          string
	Creds          string // a credentials file
}

// Child is one run of the real CLI.
type Child struct {
	// Args follow `nats` on the real CLI's command line.
	Args []string
	// Conn points the child at the broker.
	Conn Conn
	// Home is the child's home directory: its contexts, plugins and other
	// files live under it, never in the user's own configuration.
	Home string
	// Dir is the working directory relative file names are read from; ""
	// for the lab's own.
	Dir string
	// Stdin is what the child reads; nil for nothing.
	Stdin io.Reader
	// Stdout and Stderr receive what the child prints, as it prints it.
	Stdout, Stderr io.Writer
	// Grace is how long the child may take to finish after it is
	// interrupted before it is killed; 0 for DefaultGrace.
	Grace time.Duration
	// Probe, when set, asks the child for its connections while it runs
	// (Probe.Look), and Run asks once more just before it interrupts the
	// child, while they are still open.
	Probe *Probe
}

// DefaultGrace is how long an interrupted child may take to wind up.
const DefaultGrace = 2 * time.Second

// ExitError is a run of the real CLI that exited unsuccessfully. It has
// printed its own error line already.
type ExitError struct{ Code int }

func (e *ExitError) Error() string {
	return fmt.Sprintf("the real nats CLI exited with status %d", e.Code)
}

// Run starts the child and waits for it. When ctx ends first, the child is
// interrupted (SIGINT, as Ctrl-C in a terminal), then killed after the
// grace period, its own children with it; Run then returns ctx's error.
func (c Child) Run(ctx context.Context) error {
	// The child is this program again, which main routes to the real CLI.
	if !routed.Load() {
		return errors.New("this program cannot run the real CLI: its main does not call realcli.RunIfChild")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find natslab's own executable to run the real CLI: %w", err)
	}
	if c.Home == "" {
		return errors.New("the real CLI needs a home directory")
	}
	if err := os.MkdirAll(c.Home, 0o700); err != nil {
		return fmt.Errorf("cannot create the real CLI's home %s: %w", c.Home, err)
	}
	// The child reads end-of-file here once every copy of w is closed:
	// when Run returns, or when this process dies.
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer w.Close()
	// The child answers the lab's questions (see conns.go) on this one.
	answers, reply, err := os.Pipe()
	if err != nil {
		r.Close()
		return err
	}
	defer answers.Close()

	args, secrets := maskSecrets(c.Args)
	cmd := exec.CommandContext(ctx, exe, append([]string{ChildArg}, args...)...)
	cmd.Env = append(c.env(), parentFDVar+"=3", replyFDVar+"=4")
	if secrets != "" {
		cmd.Env = append(cmd.Env, secretsVar+"="+secrets)
	}
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	cmd.ExtraFiles = []*os.File{r, reply}
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error {
		// Its connections as they are, before it lets go of them.
		c.Probe.Look()
		return interrupt(cmd.Process)
	}
	cmd.WaitDelay = c.Grace
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = DefaultGrace
	}

	done := make(chan error, 1)
	go func() {
		// The thread that starts the child is the one whose end kills it
		// (Linux's parent-death signal), so it stays this goroutine's
		// until the child has ended.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// Questions asked before the child reads them wait in the pipe.
		c.Probe.attach(newAsker(w, answers))
		if err := cmd.Start(); err != nil {
			c.Probe.attach(nil)
			r.Close()
			reply.Close()
			done <- fmt.Errorf("cannot start the real nats CLI: %w", err)
			return
		}
		r.Close()
		reply.Close()
		err := cmd.Wait()
		// No question is asked of a child that has ended, and one being
		// answered now is read before Run returns.
		c.Probe.attach(nil)
		killGroup(cmd.Process)
		done <- err
	}()
	err = <-done
	if ctx.Err() != nil {
		return ctx.Err() // stopped on purpose
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return &ExitError{Code: ee.ExitCode()}
	case errors.Is(err, exec.ErrWaitDelay):
		// The child exited but something it started still held its output.
		return nil
	}
	return err
}

// env is the child's whole environment: only what a program needs to run
// (PATH, locale, time zone), a home inside the lab's store, and the
// broker's address and credentials. The user's own NATS_* variables and
// contexts never reach it.
func (c Child) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH", name == "TZ", name == "LANG", name == "TMPDIR", name == "SYSTEMROOT",
			strings.HasPrefix(name, "LC_"):
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+c.Home,
		"XDG_CONFIG_HOME="+filepath.Join(c.Home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(c.Home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(c.Home, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(c.Home, ".local", "state"),
	)
	set := func(name, value string) {
		if value != "" {
			env = append(env, name+"="+value)
		}
	}
	set("NATS_URL", c.Conn.URL)
	set("NATS_USER", c.Conn.User)
	set("NATS_PASSWORD", c.Conn.Password)
	set("NATS_TOKEN", c.Conn.Token)
	set("NATS_CREDS", c.Conn.Creds)
	return env
}
