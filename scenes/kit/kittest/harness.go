// Package kittest runs a scene in tests the way the lab runs it: on a real
// broker, on a manual clock, its feed's messages delivered as Bubble Tea
// delivers them, its picture drawn at fixed sizes without escape sequences
// (the picture, not the palette), and the learner's commands typed into a
// real command session.
package kittest

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"natslab/broker"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// Epoch is where every scene test's manual clock starts.
var Epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

// Scene is what the harness needs of a scene: a kit.Base does the rest.
type Scene interface {
	scenes.Scene
	Feed() *kit.Feed
	UseStyles(st *kit.Styles)
	Touch()
}

// Harness drives one scene. S is the scene's snapshot, as the scene itself
// last read it (what it draws), which Until waits on.
type Harness[Sc Scene, S any] struct {
	T     testing.TB
	Clock *kit.ManualClock
	Scene Sc

	snap      func(Sc) S
	follow    bool
	linger    time.Duration
	redraw    bool
	normalize func(string) string

	waiting chan tea.Msg
	next    tea.Cmd // the command the scene asked to run next
}

// Option adjusts a Harness.
type Option func(*harnessOptions)

type harnessOptions struct {
	follow    bool
	linger    time.Duration
	redraw    bool
	normalize func(string) string
}

// FollowCommands delivers what the scene's own commands bring, as Bubble
// Tea does: Init's, then each Update's (frames while something moves,
// events otherwise). Without it Step delivers the feed's events alone, one
// Wait at a time, and never a frame.
func FollowCommands() Option { return func(o *harnessOptions) { o.follow = true } }

// Linger is how long Settle goes on taking what arrives once its condition
// holds (100ms without it).
func Linger(d time.Duration) Option { return func(o *harnessOptions) { o.linger = d } }

// Redraw makes every View draw afresh rather than trust the scene's cache.
func Redraw() Option { return func(o *harnessOptions) { o.redraw = true } }

// Normalize rewrites each View (what differs from run to run: inbox
// names, measured times), keeping its width.
func Normalize(f func(string) string) Option { return func(o *harnessOptions) { o.normalize = f } }

// Open builds a scene with build on a manual clock at Epoch, drawing in
// plain styles, closed when the test ends.
func Open[Sc Scene, S any](t testing.TB, dep broker.Deployment, build func(env scenes.Env) (Sc, error), snap func(Sc) S, opts ...Option) *Harness[Sc, S] {
	t.Helper()
	o := harnessOptions{linger: 100 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	clock := kit.NewManualClock(Epoch)
	s, err := build(scenes.Env{Deployment: dep, Clock: clock})
	if err != nil {
		t.Fatalf("new scene: %v", err)
	}
	t.Cleanup(s.Close)
	s.UseStyles(kit.NewStyles(false))
	return &Harness[Sc, S]{T: t, Clock: clock, Scene: s, snap: snap,
		follow: o.follow, linger: o.linger, redraw: o.redraw, normalize: o.normalize}
}

// Do runs one of the scene's controls and fails the test on an error.
func (h *Harness[Sc, S]) Do(control string, args ...string) string {
	h.T.Helper()
	out, err := h.Scene.Do(control, args)
	if err != nil {
		h.T.Fatalf("%s %v: %v", control, args, err)
	}
	return out
}

// Step delivers the scene's next message, if one comes within timeout.
func (h *Harness[Sc, S]) Step(timeout time.Duration) bool {
	if h.waiting == nil {
		cmd := h.Scene.Feed().Wait()
		if h.follow {
			if h.next == nil {
				h.next = h.Scene.Init()
			}
			cmd = h.next
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- cmd() }()
		h.waiting = ch
	}
	select {
	case m := <-h.waiting:
		h.waiting = nil
		h.next = h.Scene.Update(m)
		if h.next == nil {
			h.next = h.Scene.Init() // a message not the scene's: wait again
		}
		return true
	case <-time.After(timeout):
		return false
	}
}

// Until delivers the scene's messages until its own snapshot satisfies cond.
func (h *Harness[Sc, S]) Until(what string, cond func(S) bool) {
	h.T.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond(h.snap(h.Scene)) {
		if time.Now().After(deadline) {
			h.T.Fatalf("waiting for %s: the scene shows %+v", what, h.snap(h.Scene))
		}
		h.Step(50 * time.Millisecond)
	}
}

// Settle is Until and a moment more (Linger), so that every event of a
// stage is in before the clock moves.
func (h *Harness[Sc, S]) Settle(what string, cond func(S) bool) {
	h.T.Helper()
	h.Until(what, cond)
	h.Quiet(h.linger)
}

// Quiet delivers whatever arrives within d.
func (h *Harness[Sc, S]) Quiet(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		h.Step(10 * time.Millisecond)
	}
}

// View draws the scene at w×hgt, without escape sequences.
func (h *Harness[Sc, S]) View(w, hgt int) string {
	h.Scene.SetSize(w, hgt)
	if h.redraw {
		h.Scene.Touch()
	}
	v := ansi.Strip(h.Scene.View())
	if h.normalize != nil {
		v = h.normalize(v)
	}
	return v
}

// Golden compares the scene drawn at w×hgt with the subtest's golden file
// (testdata/<test>/<name>.golden; -update rewrites it).
func (h *Harness[Sc, S]) Golden(t *testing.T, name string, w, hgt int) {
	t.Helper()
	v := h.View(w, hgt)
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
}
