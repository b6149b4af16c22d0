package brokertest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// RealCLI returns the path of the real nats CLI, the version pinned as a
// tool in go.mod (natscli v0.5.0), building it once per test process.
func RealCLI(t testing.TB) string {
	t.Helper()
	return Build(t, "github.com/nats-io/natscli/nats")
}

// CLIResult is what a run of the real CLI printed.
type CLIResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// RunRealCLI runs the real nats CLI against url with no context, no
// terminal and a private HOME, as the reference captures were made.
func RunRealCLI(t testing.TB, url string, args ...string) CLIResult {
	t.Helper()
	return runRealCLI(t, url, "", t.TempDir(), append([]string{"--no-context"}, args...))
}

// RealEnv is where a real CLI process runs, as a person's shell would
// set it up: the server in NATS_URL ("" for none), a working directory
// ("" for the test's) and a HOME of its own (its contexts and other files).
type RealEnv struct {
	URL, Dir, Home string
}

// RunRealCLIIn runs the real CLI once in env, with no terminal and no
// input, and waits for it (at most two minutes).
func RunRealCLIIn(t testing.TB, env RealEnv, args ...string) CLIResult {
	t.Helper()
	return runRealCLI(t, env.URL, env.Dir, env.Home, args)
}

// runRealCLI runs the real CLI against url (in NATS_URL; "" for none) in
// dir with home as its HOME (and the XDG directories under it).
func runRealCLI(t testing.TB, url, dir, home string, args []string) CLIResult {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := realCommand(t, ctx, RealEnv{URL: url, Dir: dir, Home: home}, args)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := CLIResult{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("nats %s did not finish within two minutes\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), res.Stdout, res.Stderr)
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("running the real CLI: %v", err)
	}
	return res
}

func realCommand(t testing.TB, ctx context.Context, env RealEnv, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, RealCLI(t), args...)
	cmd.Dir = env.Dir
	home := env.Home
	if home == "" {
		home = t.TempDir()
	}
	cmd.Env = homeEnv(home)
	if env.URL != "" {
		cmd.Env = append(cmd.Env, "NATS_URL="+env.URL)
	}
	cmd.Stdin = strings.NewReader("")
	return cmd
}

// RealProcess is a long-running real CLI command (nats events, service
// serve) started by StartRealCLI.
type RealProcess struct {
	cmd      *exec.Cmd
	out, err *lineBuffer
	first    *FirstLine
	wrote    *wakeup
	done     chan struct{} // closed when the process has ended
	waitErr  error         // cmd.Wait's, once done is closed
	// interrupted is set when Stop interrupts the running process.
	interrupted atomic.Bool
}

// FirstLine catches the first whole line written to any of its writers
// (a process's stdout and stderr, say): the one completed first.
type FirstLine struct {
	once sync.Once
	ch   chan string
}

// NewFirstLine makes a FirstLine; Writer gives it writers.
func NewFirstLine() *FirstLine { return &FirstLine{ch: make(chan string, 1)} }

// Writer is a writer whose first whole line FirstLine may catch.
func (f *FirstLine) Writer() io.Writer { return newLineBuffer(f) }

// Line is the first whole line, once written; it blocks until then.
func (f *FirstLine) Line() <-chan string { return f.ch }

func (f *FirstLine) offer(line string) { f.once.Do(func() { f.ch <- line }) }

// StartRealCLI starts the real CLI in env and returns at once; it is
// interrupted when the test ends, if it has not been stopped before.
func StartRealCLI(t testing.TB, env RealEnv, args ...string) *RealProcess {
	t.Helper()
	cmd := realCommand(t, context.Background(), env, args)
	first := NewFirstLine()
	wrote := newWakeup()
	p := &RealProcess{cmd: cmd, out: newLineBuffer(first), err: newLineBuffer(first), first: first, wrote: wrote, done: make(chan struct{})}
	p.out.wrote, p.err.wrote = wrote, wrote
	cmd.Stdout, cmd.Stderr = p.out, p.err
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the real CLI: %v", err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.Stop)
	return p
}

// FirstLine waits until the process has written a whole line to either
// stream (or has ended), and returns the first, or "" if it ended without
// one.
func (p *RealProcess) FirstLine() string {
	select {
	case l := <-p.first.ch:
		return l
	case <-p.done:
		select {
		case l := <-p.first.ch:
			return l
		default:
			return ""
		}
	}
}

// Stop interrupts the process as Ctrl-C would and waits for it.
func (p *RealProcess) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.interrupted.Store(true)
	_ = p.cmd.Process.Signal(os.Interrupt)
	<-p.done
}

// Output is everything the process wrote so far.
func (p *RealProcess) Output() (stdout, stderr string) { return p.out.String(), p.err.String() }

// Done is closed once the process has ended.
func (p *RealProcess) Done() <-chan struct{} { return p.done }

// Ended waits for the process to end and says how: interrupted by Stop,
// or by itself with exit code code.
func (p *RealProcess) Ended() (code int, interrupted bool) {
	<-p.done
	if p.interrupted.Load() {
		return 0, true
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ExitCode(), false
	}
	return 0, false
}

// AwaitOutput waits until shows(stdout, stderr) holds for what the process
// has written, looking again at each write, and reports whether it did;
// false once the process has ended, or within has passed, without it.
func (p *RealProcess) AwaitOutput(within time.Duration, shows func(stdout, stderr string) bool) bool {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		next := p.wrote.next() // before looking, so no write is missed
		if shows(p.Output()) {
			return true
		}
		select {
		case <-next:
		case <-p.done:
			return shows(p.Output())
		case <-deadline.C:
			return false
		}
	}
}

// wakeup is a channel closed (and replaced) at every write, for waiters
// on what a process prints.
type wakeup struct {
	mu sync.Mutex
	ch chan struct{}
}

func newWakeup() *wakeup { return &wakeup{ch: make(chan struct{})} }

// next is closed at the next write.
func (w *wakeup) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

func (w *wakeup) wake() {
	w.mu.Lock()
	close(w.ch)
	w.ch = make(chan struct{})
	w.mu.Unlock()
}

// lineBuffer keeps what is written and offers its first whole line.
type lineBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	first *FirstLine
	sent  bool
	wrote *wakeup // nil: nobody waits on writes
}

func newLineBuffer(first *FirstLine) *lineBuffer { return &lineBuffer{first: first} }

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	if !l.sent {
		if line, _, ok := strings.Cut(l.b.String(), "\n"); ok {
			l.sent = true
			l.first.offer(line)
		}
	}
	l.mu.Unlock()
	if l.wrote != nil {
		l.wrote.wake()
	}
	return len(p), nil
}

func (l *lineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), "DATE"},
	{regexp.MustCompile(`(?m)^\d{2}:\d{2}:\d{2} `), "TIME "},
	{regexp.MustCompile(`\[\d{2}:\d{2}:\d{2}\]`), "[TIME]"}, // consumer next's "[15:04:05] subj: …"
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "DUR"},
	{regexp.MustCompile(`\b(\d+[ywdhm])+(\d+(\.\d+)?s)?\b`), "DUR"},
	{regexp.MustCompile(`\b[A-Za-z0-9]{22}\b`), "NUID"},
	{regexp.MustCompile(`_INBOX\.[A-Za-z0-9.]+`), "INBOX"},
}

// Normalize replaces what differs between two runs of the same command
// (dates, times, durations, unique IDs) with placeholders, so the real
// CLI's output and the lab's can be compared.
func Normalize(s string) string {
	for _, n := range normalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}
