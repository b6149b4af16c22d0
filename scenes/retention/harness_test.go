package retention

import (
	"bytes"
	"context"
	"sync"
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

// harness runs the scene on a real embedded server with a manual clock,
// delivering its feed messages as Bubble Tea would, and a command session
// to type the episode's commands into.
type harness struct {
	t       testing.TB
	srv     *broker.Server
	s       *Scene
	sess    *command.Session
	clock   *kit.ManualClock
	waiting chan tea.Msg
	next    tea.Cmd // the command the scene asked to run next
}

var epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

func newHarness(t testing.TB, opts Options, bopts ...brokertest.Option) *harness {
	t.Helper()
	srv := brokertest.Start(t, bopts...)
	h := &harness{t: t, srv: srv, clock: kit.NewManualClock(epoch)}
	s, err := New(scenes.Env{Deployment: srv, Clock: h.clock}, opts)
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

// run types one command into the session and returns what it printed.
func (h *harness) run(line string) (string, error) {
	h.t.Helper()
	var out, errw bytes.Buffer
	err := h.sess.Run(context.Background(), line, &out, &errw)
	return out.String() + errw.String(), err
}

// job starts a background command and waits until it is ready.
func (h *harness) job(line string) (*command.Job, *syncBuf) {
	h.t.Helper()
	out := &syncBuf{}
	j := h.sess.Start(context.Background(), line, out, out)
	select {
	case <-j.Ready():
	case <-time.After(10 * time.Second):
		h.t.Fatalf("%s: not ready", line)
	}
	return j, out
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (h *harness) do(control string, args ...string) string {
	h.t.Helper()
	out, err := h.s.Do(control, args)
	if err != nil {
		h.t.Fatalf("%s %v: %v", control, args, err)
	}
	return out
}

// step delivers the scene's next message, if one comes within timeout,
// following the chain of commands as Bubble Tea does: Init's, then each
// Update's (frames while something moves, events otherwise).
func (h *harness) step(timeout time.Duration) bool {
	if h.waiting == nil {
		if h.next == nil {
			h.next = h.s.Init()
		}
		ch := make(chan tea.Msg, 1)
		cmd := h.next
		go func() { ch <- cmd() }()
		h.waiting = ch
	}
	select {
	case m := <-h.waiting:
		h.waiting = nil
		h.next = h.s.Update(m)
		if h.next == nil {
			h.next = h.s.Init() // a message not the scene's: wait again
		}
		return true
	case <-time.After(timeout):
		return false
	}
}

// until delivers feed messages until the scene's own state satisfies cond.
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

// settle is until and a moment more, so every event of a stage is in.
func (h *harness) settle(what string, cond func(Snapshot) bool) {
	h.t.Helper()
	h.until(what, cond)
	end := time.Now().Add(100 * time.Millisecond)
	for time.Now().Before(end) {
		h.step(10 * time.Millisecond)
	}
}

// must runs a command that has to succeed.
func (h *harness) must(line string) string {
	h.t.Helper()
	out, err := h.run(line)
	if err != nil {
		h.t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return out
}

func (h *harness) view(w, hgt int) string {
	h.s.SetSize(w, hgt)
	return ansi.Strip(h.s.View())
}

// col is the scene's own view of a policy's column.
func col(s Snapshot, policy string) Column {
	for _, c := range s.Columns {
		if c.Policy == policy {
			return c
		}
	}
	return Column{}
}

func cons(c Column, name string) Consumer { k, _ := consumer(c, name); return k }
