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
	t       *testing.T
	srv     *broker.Server
	s       *command.Session
	changed chan struct{} // a job received a message or ended, or a background job printed
}

func newLab(t *testing.T, opts ...brokertest.Option) *lab {
	t.Helper()
	return newLabOn(t, brokertest.Start(t, opts...))
}

func (l *lab) poke() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// await waits until cond holds of the session's jobs, looking again at
// each of their events (a message received, a job ended) and each line a
// background job prints.
func (l *lab) await(what string, cond func() bool) {
	l.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-l.changed:
		case <-deadline:
			l.t.Fatalf("timed out waiting for %s", what)
		}
	}
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
	mu      sync.Mutex
	b       bytes.Buffer
	written func() // told after each write, if set
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.b.Write(p)
	s.mu.Unlock()
	if s.written != nil {
		s.written()
	}
	return n, err
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

// addReachable runs a stream add on the lab's cluster and returns once a
// publish made on any node reaches the new stream's leader: a leader is
// elected a moment before its interest in the subjects has reached every
// node, and nothing announces that it has.
func (l *lab) addReachable(line, stream string) {
	l.t.Helper()
	l.must(line)
	if !broker.WaitFor(10*time.Second, func() bool { return l.srv.Reachable(stream) }) {
		l.t.Fatalf("stream %s is not reachable from every node", stream)
	}
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
	out := &syncBuf{}
	if l.changed != nil {
		out.written = l.poke
	}
	j := l.s.Start(context.Background(), line, out, out)
	return j, out
}

// eventually polls cond, failing after a few seconds: for what the server
// holds and announces to no one (a pull waiting, a watch re-made after a
// restart). What jobs receive and print, await waits on.
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
