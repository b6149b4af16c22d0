package kittest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/command"
)

// Session is the learner's side of a scene test: a real command session,
// as the lab's command pane runs it, closed when the test ends.
type Session struct {
	t    testing.TB
	sess *command.Session
	jobs []*command.Job
	// Timeout bounds each command Try runs (0: none).
	Timeout time.Duration
}

// NewSession opens a command session on dep.
func NewSession(t testing.TB, dep broker.Deployment, opts ...command.Option) *Session {
	s := &Session{t: t, sess: command.NewSession(dep, opts...)}
	t.Cleanup(s.sess.Close)
	return s
}

// Try types one command and returns what it printed (standard output,
// then standard error) and its error.
func (s *Session) Try(line string) (string, error) {
	ctx := context.Background()
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	var out, errw bytes.Buffer
	err := s.sess.Run(ctx, line, &out, &errw)
	return out.String() + errw.String(), err
}

// Run types a command that has to succeed, and returns what it printed.
func (s *Session) Run(line string) string {
	s.t.Helper()
	out, err := s.Try(line)
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return out
}

// Start runs a command in the background (sub, a worker waiting for a
// message) and returns once it is ready; the test's end stops it.
func (s *Session) Start(line string) *command.Job {
	s.t.Helper()
	out := &syncBuffer{}
	j := s.sess.Start(context.Background(), line, out, out)
	s.t.Cleanup(func() { s.Stop(j) })
	select {
	case <-j.Ready():
	case <-j.Done():
		s.t.Fatalf("%s ended: %v\n%s", line, j.Err(), out.String())
	case <-time.After(10 * time.Second):
		s.t.Fatalf("%s: not ready", line)
	}
	s.jobs = append(s.jobs, j)
	return j
}

// Reconnecting runs restart (which starts the stopped or running server
// again) and returns once the session's connection is back, as the lab's
// restart verb does: the next command does not find it reconnecting.
func (s *Session) Reconnecting(restart func() error) {
	s.t.Helper()
	if err := s.sess.Reconnecting(restart); err != nil {
		s.t.Fatal(err)
	}
}

// Jobs are the jobs Start started, in that order.
func (s *Session) Jobs() []*command.Job { return s.jobs }

// Stop ends a job and waits for it.
func (s *Session) Stop(j *command.Job) {
	j.Stop()
	select {
	case <-j.Done():
	case <-time.After(5 * time.Second):
		s.t.Error("job did not stop")
	}
}

// syncBuffer collects a job's output, written from the job's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
