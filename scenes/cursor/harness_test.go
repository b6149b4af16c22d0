package cursor

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// harness runs a cursor scene on a real embedded server with a manual
// clock, delivering the scene's feed messages as Bubble Tea would, and a
// command session to type the episodes' commands into.
type harness struct {
	t       testing.TB
	srv     *broker.Server
	sess    *command.Session
	s       *Scene
	clock   *kit.ManualClock
	waiting chan tea.Msg
}

var epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

func newHarness(t testing.TB, setup ...string) *harness {
	t.Helper()
	srv := brokertest.Start(t)
	h := &harness{t: t, srv: srv, clock: kit.NewManualClock(epoch)}
	h.sess = newSession(srv)
	for _, line := range setup {
		h.run(line)
	}
	s, err := New(scenes.Env{Deployment: srv, Clock: h.clock})
	if err != nil {
		t.Fatalf("new scene: %v", err)
	}
	t.Cleanup(s.Close)
	s.Styles = kit.NewStyles(false)
	h.s = s
	return h
}

// run types a command and fails the test when it fails.
func (h *harness) run(line string) string {
	h.t.Helper()
	out, err := h.try(line)
	if err != nil {
		h.t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return out
}

// try types a command and returns what it printed and its error.
func (h *harness) try(line string) (string, error) {
	var out, errw bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := h.sess.Run(ctx, line, &out, &errw)
	return out.String() + errw.String(), err
}

// start runs a command in the background (a worker waiting for a message).
func (h *harness) start(line string) *command.Job {
	var out bytes.Buffer
	j := h.sess.Start(context.Background(), line, &out, &out)
	h.t.Cleanup(func() { j.Stop(); <-j.Done() })
	select {
	case <-j.Ready():
	case <-time.After(5 * time.Second):
		h.t.Fatalf("%s: not ready", line)
	}
	return j
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

// until delivers feed messages until the scene's snapshot satisfies cond.
func (h *harness) until(what string, cond func(Snapshot) bool) {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond(h.s.snap) {
		if time.Now().After(deadline) {
			h.t.Fatalf("waiting for %s: the scene shows %+v", what, h.s.snap)
		}
		h.step(50 * time.Millisecond)
	}
}

// settle waits for cond, then takes in whatever else arrives shortly.
func (h *harness) settle(what string, cond func(Snapshot) bool) {
	h.t.Helper()
	h.until(what, cond)
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
		h.step(10 * time.Millisecond)
	}
}

// view draws the scene at w×h, without escape sequences.
func (h *harness) view(w, hgt int) string {
	h.s.SetSize(w, hgt)
	return ansi.Strip(h.s.View())
}

func (h *harness) golden(t *testing.T, name string, w, hgt int) {
	t.Helper()
	v := h.view(w, hgt)
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
}

// consumer is the named consumer as the scene shows it (zero when absent).
func consumer(s Snapshot, name string) Consumer {
	if c := s.consumer(name); c != nil {
		return *c
	}
	return Consumer{}
}

func storyHas(s Snapshot, text string) bool {
	for _, l := range s.Story {
		if strings.Contains(l.Text, text) {
			return true
		}
	}
	return false
}

func newSession(dep broker.Deployment) *command.Session {
	return command.NewSession(dep, command.WithTimeout(5*time.Second))
}
