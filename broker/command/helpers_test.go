package command_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// lab is a session on a real embedded server, for tests.
type lab struct {
	t   *testing.T
	srv *broker.Server
	s   *command.Session
}

func newLab(t *testing.T, opts ...brokertest.Option) *lab {
	t.Helper()
	srv := brokertest.Start(t, opts...)
	s := command.NewSession(srv, command.WithTimeout(2*time.Second))
	t.Cleanup(s.Close)
	return &lab{t: t, srv: srv, s: s}
}

// result is what one line printed: the real CLI's two streams, the lab's
// notes, the error.
type result struct {
	out, err, note string
	e              error
}

// all is stdout and stderr together plus the error line, as a person sees them.
func (r result) all() string {
	s := r.err + r.out
	if r.e != nil {
		s += command.ErrorLine(r.e) + "\n"
	}
	return s
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// run executes a line and waits for it.
func (l *lab) run(line string) result {
	l.t.Helper()
	var out, errb, note syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e := l.s.RunStreams(ctx, line, command.Streams{Out: &out, Err: &errb, Note: &note})
	return result{out: out.String(), err: errb.String(), note: note.String(), e: e}
}

// must runs a line that should succeed.
func (l *lab) must(line string) result {
	l.t.Helper()
	r := l.run(line)
	if r.e != nil {
		l.t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", line, r.e, r.out, r.err)
	}
	return r
}

// fails runs a line that should fail, and returns the real CLI's error
// line (or, where the real CLI itself ran, all it printed on stderr) and
// the lab's note about it: together they must hold all of want. Whether the error line is the real CLI's own is for the
// differential tests (*_realcli_test.go) to say.
func (l *lab) fails(line string, want ...string) string {
	l.t.Helper()
	r := l.run(line)
	if r.e == nil {
		l.t.Fatalf("%s: want an error, got none\n%s", line, r.all())
	}
	msg := command.ErrorLine(r.e)
	if command.Reported(r.e) {
		// The real CLI ran and printed its own error (and usage).
		msg = strings.TrimRight(r.err, "\n")
	} else if strings.Contains(msg, "\n") {
		l.t.Errorf("%s: error is more than one line: %q", line, msg)
	}
	if n := command.ErrorNote(r.e); n != "" {
		msg += "\n" + n
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			l.t.Errorf("%s: error and note %q lack %q", line, msg, w)
		}
	}
	return msg
}

// background starts a line as a job.
func (l *lab) background(line string) (*command.Job, *syncBuf) {
	var out syncBuf
	j := l.s.Start(context.Background(), line, &out, &out)
	return j, &out
}

// eventually waits for cond, failing after a few seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
