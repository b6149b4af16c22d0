package core

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// harness runs a scene on a real embedded server with a manual clock,
// delivering the scene's feed messages as Bubble Tea would, and a command
// session for the learner's side (sub, pub), as the lab's pane runs it.
type harness struct {
	t       testing.TB
	srv     *broker.Server
	s       *Scene
	clock   *kit.ManualClock
	sess    *command.Session
	jobs    []*command.Job
	waiting chan tea.Msg
}

var epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

func newHarness(t testing.TB, kind Kind, bopts ...brokertest.Option) *harness {
	t.Helper()
	srv := brokertest.Start(t, append([]brokertest.Option{brokertest.WithoutJetStream()}, bopts...)...)
	return newHarnessOn(t, srv, kind)
}

func newHarnessOn(t testing.TB, srv *broker.Server, kind Kind) *harness {
	t.Helper()
	h := &harness{t: t, srv: srv, clock: kit.NewManualClock(epoch)}
	s, err := New(scenes.Env{Deployment: srv, Clock: h.clock}, kind)
	if err != nil {
		t.Fatalf("new scene: %v", err)
	}
	t.Cleanup(s.Close)
	s.Styles = kit.NewStyles(false)
	h.s = s
	h.sess = command.NewSession(srv)
	t.Cleanup(h.sess.Close)
	return h
}

// do runs a control and fails the test on an error.
func (h *harness) do(control string, args ...string) string {
	h.t.Helper()
	out, err := h.s.Do(control, args)
	if err != nil {
		h.t.Fatalf("%s %v: %v", control, args, err)
	}
	return out
}

// run runs one command line in the pane's session, as a learner types it.
func (h *harness) run(line string) string {
	h.t.Helper()
	var out, errw bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.sess.Run(ctx, line, &out, &errw); err != nil {
		h.t.Fatalf("%s: %v\n%s", line, err, errw.String())
	}
	return out.String()
}

// start starts a background job (sub …) and waits until it listens.
func (h *harness) start(line string) *command.Job {
	h.t.Helper()
	var out, errw bytes.Buffer
	j := h.sess.Start(context.Background(), line, &out, &errw)
	select {
	case <-j.Ready():
	case <-j.Done():
		h.t.Fatalf("%s ended: %v\n%s", line, j.Err(), errw.String())
	case <-time.After(5 * time.Second):
		h.t.Fatalf("%s: not ready", line)
	}
	h.jobs = append(h.jobs, j)
	h.t.Cleanup(j.Stop)
	return j
}

// stop ends a job and waits for it.
func (h *harness) stop(j *command.Job) {
	j.Stop()
	select {
	case <-j.Done():
	case <-time.After(5 * time.Second):
		h.t.Fatal("job did not stop")
	}
}

// step delivers the scene's next feed message, if one comes within timeout.
func (h *harness) step(timeout time.Duration) bool {
	if h.waiting == nil {
		ch := make(chan tea.Msg, 1)
		cmd := h.s.Feed().Wait()
		go func() { ch <- cmd() }()
		h.waiting = ch
	}
	select {
	case m := <-h.waiting:
		h.waiting = nil
		h.s.Update(m)
		return true
	case <-time.After(timeout):
		return false
	}
}

// until delivers feed messages until the scene's own state satisfies cond,
// and a moment more, so every event of the stage is in.
func (h *harness) until(what string, cond func(Snapshot) bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond(h.s.snap) {
		if time.Now().After(deadline) {
			h.t.Fatalf("waiting for %s: the scene shows %+v", what, h.s.snap)
		}
		h.step(50 * time.Millisecond)
	}
	h.quiet(100 * time.Millisecond)
}

// quiet delivers whatever arrives within d.
func (h *harness) quiet(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		h.step(10 * time.Millisecond)
	}
}

// view draws the scene at w×h, without escape sequences.
func (h *harness) view(w, hgt int) string {
	h.s.SetSize(w, hgt)
	return ansi.Strip(h.s.View())
}

// settled draws the scene once everything on its way has landed: the
// counts on screen are then the server's.
func (h *harness) settled(w, hgt int) string {
	h.clock.Advance(10 * time.Second)
	return h.view(w, hgt)
}

// counts maps each subscription's subject (and queue) to its count, summed
// over subscriptions that share them.
func counts(s Snapshot) map[string]uint64 {
	out := map[string]uint64{}
	for _, sub := range s.Subs {
		k := sub.Subject
		if sub.Queue != "" {
			k += " " + sub.Queue
		}
		out[k] += sub.Msgs
	}
	return out
}

func subsOn(subject string, n int) func(Snapshot) bool {
	return func(s Snapshot) bool {
		c := 0
		for _, sub := range s.Subs {
			if sub.Subject == subject {
				c++
			}
		}
		return c == n
	}
}
