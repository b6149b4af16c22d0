package contrast

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// harness runs a contrast scene on a real embedded server with a manual
// clock, delivering the scene's feed messages as Bubble Tea would.
type harness struct {
	t       testing.TB
	srv     *broker.Server
	s       *Scene
	clock   *kit.ManualClock
	waiting chan tea.Msg
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
	s.d.pace = 10 * time.Millisecond // the app's replay pace is real time: keep tests quick
	h.s = s
	s.Styles = kit.NewStyles(false)
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

// until delivers feed messages until the scene's own snapshot satisfies cond.
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
