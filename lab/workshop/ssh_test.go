package workshop

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Tests through an SSH client in the test process (golang.org/x/crypto/ssh):
// what the server refuses, limits and parks. The OpenSSH client drives the
// path people take in e2e_test.go.

func startWorkshop(t *testing.T, opts Options) *Workshop {
	t.Helper()
	if opts.SSH == "" {
		opts.SSH = "127.0.0.1:0"
	}
	if opts.Store == "" {
		opts.Store = t.TempDir()
	}
	w, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// answer is a keyboard-interactive client that types code at every question.
func answer(code string) gossh.AuthMethod {
	return gossh.KeyboardInteractive(func(name, instruction string, questions []string, echos []bool) ([]string, error) {
		out := make([]string, len(questions))
		for i := range out {
			out[i] = code
		}
		return out, nil
	})
}

func dial(w *Workshop, user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", w.Addr().String(), &gossh.ClientConfig{
		User:            user,
		Auth:            auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         10 * time.Second,
	})
}

// screenBuf collects what a session prints.
type screenBuf struct {
	mu  sync.Mutex
	b   bytes.Buffer
	new chan struct{}
}

func newScreenBuf() *screenBuf { return &screenBuf{new: make(chan struct{}, 1)} }

func (s *screenBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	s.mu.Unlock()
	select {
	case s.new <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *screenBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the output contains want; the deadline bounds a failure.
func (s *screenBuf) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.new:
		case <-deadline:
			t.Fatalf("no %q in the output:\n%q", want, s.String())
		}
	}
}

// labSession opens a terminal session as the lab's attendees do.
type labSession struct {
	client *gossh.Client
	sess   *gossh.Session
	in     io.WriteCloser
	out    *screenBuf
	done   chan error
}

func openLab(t *testing.T, w *Workshop, user string, auth ...gossh.AuthMethod) *labSession {
	t.Helper()
	c, err := dial(w, user, auth...)
	if err != nil {
		t.Fatalf("%s cannot connect: %v", user, err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out := newScreenBuf()
	s.Stdout, s.Stderr = out, out
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	ls := &labSession{client: c, sess: s, in: in, out: out, done: make(chan error, 1)}
	go func() { ls.done <- s.Wait() }()
	t.Cleanup(func() { c.Close() })
	return ls
}

func (l *labSession) typeLine(text string) { _, _ = io.WriteString(l.in, text+"\r") }

// waitEvent waits for a workshop log line containing want.
func waitEvent(t *testing.T, w *Workshop, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		ch := w.Changed()
		for _, e := range w.Events(maxEvents) {
			if strings.Contains(e.Text, want) {
				return
			}
		}
		select {
		case <-ch:
		case <-deadline:
			var all []string
			for _, e := range w.Events(maxEvents) {
				all = append(all, e.Text)
			}
			t.Fatalf("no event %q; events:\n%s", want, strings.Join(all, "\n"))
		}
	}
}
